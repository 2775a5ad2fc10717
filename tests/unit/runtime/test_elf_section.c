/* Unit tests of runtime/elf_section.c: finds a section mpicc-style objcopy added, reports a
 * missing one and files that are not ELF. */
#include "config.h"

#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "runtime/elf_section.h"

static int open_ro(const char *path)
{
    int fd = open(path, O_RDONLY);
    ck_assert_int_ge(fd, 0);
    return fd;
}

START_TEST(finds_added_section)
{
    char dir[] = "/tmp/tm_elf_XXXXXX", cmd[1024], path[300];
    ck_assert_ptr_nonnull(mkdtemp(dir));
    snprintf(cmd, sizeof cmd,
             "printf 'payload-0123456789' > %s/data && cp /proc/self/exe %s/exe && "
             "%s --add-section .threadmpi.program=%s/data "
             "--set-section-flags .threadmpi.program=noload,readonly %s/exe %s/out",
             dir, dir, OBJCOPY, dir, dir, dir);
    ck_assert_int_eq(system(cmd), 0);
    snprintf(path, sizeof path, "%s/out", dir);
    int fd = open_ro(path);
    uint64_t off = 0, size = 0;
    ck_assert_int_eq(tm_rt_elf_section_find(fd, TM_RT_PROGRAM_SECTION, &off, &size), 0);
    ck_assert_uint_eq(size, 18);
    char buf[32] = "";
    ck_assert_int_eq(pread(fd, buf, size, (off_t)off), 18);
    ck_assert_str_eq(buf, "payload-0123456789");
    ck_assert_int_eq(tm_rt_elf_section_find(fd, ".text", &off, &size), 0);
    ck_assert_uint_gt(size, 0);
    close(fd);
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    ck_assert_int_eq(system(cmd), 0);
}
END_TEST

START_TEST(missing_section)
{
    int fd = open_ro("/proc/self/exe");
    uint64_t off, size;
    ck_assert_int_eq(tm_rt_elf_section_find(fd, TM_RT_PROGRAM_SECTION, &off, &size), -ENOENT);
    close(fd);
}
END_TEST

START_TEST(not_elf)
{
    char path[] = "/tmp/tm_elf_text_XXXXXX";
    int fd = mkstemp(path);
    ck_assert_int_ge(fd, 0);
    ck_assert_int_eq(write(fd, "#!/bin/sh\necho hi\n", 18), 18);
    uint64_t off, size;
    ck_assert_int_eq(tm_rt_elf_section_find(fd, ".text", &off, &size), -ENOEXEC);
    ck_assert_int_eq(ftruncate(fd, 2), 0);
    ck_assert_int_eq(tm_rt_elf_section_find(fd, ".text", &off, &size), -ENOEXEC);
    close(fd);
    unlink(path);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("elf_section");
    TCase *tc = tcase_create("elf_section");
    tcase_add_test(tc, finds_added_section);
    tcase_add_test(tc, missing_section);
    tcase_add_test(tc, not_elf);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
