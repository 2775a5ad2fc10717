/*
 * A minimal ELF64 section-header reader: enough to find one named section. Only ELF files of the
 * running machine's class and byte order are accepted, since only those can be run here.
 */
#include "config.h"

#include "runtime/elf_section.h"

#include <elf.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int read_at(int fd, void *buf, size_t len, uint64_t off)
{
    size_t done = 0;
    while (done < len) {
        ssize_t n = pread(fd, (char *)buf + done, len - done, (off_t)(off + done));
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            return -errno;
        if (n == 0)
            return -ENOEXEC; /* truncated file */
        done += (size_t)n;
    }
    return 0;
}

int tm_rt_elf_section_find(int fd, const char *name, uint64_t *offset_p, uint64_t *size_p)
{
    Elf64_Ehdr eh;
    int rc = read_at(fd, &eh, sizeof eh, 0);
    if (rc == -ENOEXEC || (rc == 0 && memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0))
        return -ENOEXEC;
    if (rc < 0)
        return rc;
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    const unsigned char data = ELFDATA2LSB;
#else
    const unsigned char data = ELFDATA2MSB;
#endif
    if (eh.e_ident[EI_CLASS] != ELFCLASS64 || eh.e_ident[EI_DATA] != data ||
        eh.e_shentsize != sizeof(Elf64_Shdr) || eh.e_shnum == 0 || eh.e_shstrndx >= eh.e_shnum)
        return -ENOEXEC;

    Elf64_Shdr *sh = malloc((size_t)eh.e_shnum * sizeof *sh);
    if (!sh)
        return -ENOMEM;
    char *names = NULL;
    rc = read_at(fd, sh, (size_t)eh.e_shnum * sizeof *sh, eh.e_shoff);
    if (rc < 0)
        goto out_free_headers;

    const Elf64_Shdr *strtab = &sh[eh.e_shstrndx];
    if (strtab->sh_size == 0 || strtab->sh_size > (1u << 24)) {
        rc = -ENOEXEC;
        goto out_free_headers;
    }
    names = malloc(strtab->sh_size + 1);
    if (!names) {
        rc = -ENOMEM;
        goto out_free_headers;
    }
    rc = read_at(fd, names, strtab->sh_size, strtab->sh_offset);
    if (rc < 0)
        goto out_free_names;
    names[strtab->sh_size] = '\0';

    rc = -ENOENT;
    for (unsigned i = 0; i < eh.e_shnum; i++) {
        if (sh[i].sh_name >= strtab->sh_size || strcmp(names + sh[i].sh_name, name) != 0)
            continue;
        if (sh[i].sh_type == SHT_NOBITS) {
            rc = -ENOEXEC;
            break;
        }
        *offset_p = sh[i].sh_offset;
        *size_p = sh[i].sh_size;
        rc = 0;
        break;
    }
out_free_names:
    free(names);
out_free_headers:
    free(sh);
    return rc;
}

int tm_rt_elf_mappings(int fd, uint64_t base, uint64_t size)
{
    Elf64_Ehdr eh;
    if (size < sizeof eh)
        return -ENOEXEC;
    int rc = read_at(fd, &eh, sizeof eh, base);
    if (rc < 0)
        return rc;
    if (memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0 || eh.e_ident[EI_CLASS] != ELFCLASS64 ||
        eh.e_phentsize != sizeof(Elf64_Phdr) || eh.e_phnum == 0 || eh.e_phnum > 4096 ||
        eh.e_phoff > size || (uint64_t)eh.e_phnum * sizeof(Elf64_Phdr) > size - eh.e_phoff)
        return -ENOEXEC;
    Elf64_Phdr *ph = malloc((size_t)eh.e_phnum * sizeof *ph);
    if (!ph)
        return -ENOMEM;
    rc = read_at(fd, ph, (size_t)eh.e_phnum * sizeof *ph, base + eh.e_phoff);
    if (rc < 0) {
        free(ph);
        return rc;
    }
    long page = sysconf(_SC_PAGESIZE);
    int count = 0;
    for (unsigned i = 0; i < eh.e_phnum; i++) {
        if (ph[i].p_type == PT_GNU_RELRO) {
            count++; /* made read-only after relocation: split from the rest of its segment */
        } else if (ph[i].p_type == PT_LOAD) {
            count++;
            /* Zeroed memory past the file's last page is an anonymous mapping of its own. */
            uint64_t file_end = ph[i].p_vaddr + ph[i].p_filesz,
                     mem_end = ph[i].p_vaddr + ph[i].p_memsz;
            if ((mem_end + page - 1) / page > (file_end + page - 1) / page)
                count++;
        }
    }
    free(ph);
    return count;
}
