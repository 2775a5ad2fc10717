/*
 * getopt, getopt_long and getopt_long_only with their variables optind, optarg, opterr and
 * optopt, for each rank on its own. Linked into the program's shared object (the rank library,
 * like rank_hooks.c), so into each rank's private copy: the program's calls and references bind
 * to these (-Bsymbolic), whose state is the copy's own data, so that every rank parses its argv
 * as a process would, however the ranks interleave, where the C library's single state would be
 * shared by all of them.
 *
 * The behaviour is GNU getopt's, which programs written for Linux expect, error messages
 * included: the options are permuted in front of the other arguments unless the option string
 * starts with '+' (or POSIXLY_CORRECT is set: stop at the first non-option) or '-' (each
 * non-option is returned as the argument of an option 1); a leading ':' silences the messages
 * and tells a missing argument (':') from an unknown option ('?'); "--" ends the options; "x::"
 * takes an optional argument, attached only; long options may be abbreviated to any prefix that
 * designates one option, or several that do the same; "W;" makes "-W foo" the long option
 * "--foo"; optind = 0 starts a new parse. __posix_getopt is getopt without permutation, which
 * <unistd.h> names for strictly POSIX programs.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

char *optarg;
int optind = 1;
int opterr = 1;
int optopt = '?';

typedef enum ordering {
    PERMUTE,         /* options first, the other arguments after them */
    REQUIRE_ORDER,   /* stop at the first non-option */
    RETURN_IN_ORDER, /* every argument in order, non-options as option 1's argument */
} ordering_t;

/* Where the parse is, besides optind: the rest of a group of short options ("-abc"), and the
 * non-options skipped so far, [first_nonopt, last_nonopt), to be moved after the options. */
static struct {
    int initialized;
    char *nextchar;
    int first_nonopt, last_nonopt;
    ordering_t ordering;
    int optopt; /* copied to optopt after each call, as the C library does: 0 until an error */
} parse;

/* Moves the skipped non-options [first_nonopt, last_nonopt) after the options that followed
 * them, [last_nonopt, optind), by three reversals. */
static void reverse(char **argv, int from, int to)
{
    for (to--; from < to; from++, to--) {
        char *t = argv[from];
        argv[from] = argv[to];
        argv[to] = t;
    }
}

static void exchange(char **argv)
{
    reverse(argv, parse.first_nonopt, parse.last_nonopt);
    reverse(argv, parse.last_nonopt, optind);
    reverse(argv, parse.first_nonopt, optind);
    parse.first_nonopt += optind - parse.last_nonopt;
    parse.last_nonopt = optind;
}

/* The long option at parse.nextchar (after `prefix`, "--", "-" or "-W "). -1 when getopt_long_only
 * should read it as short options instead. */
static int long_option(int argc, char **argv, const char *optstring, const struct option *longopts,
                       int *longind, int long_only, int print_errors, const char *prefix)
{
    char *name = parse.nextchar, *end = name;
    while (*end && *end != '=')
        end++;
    size_t len = (size_t)(end - name);
    const struct option *found = NULL;
    int found_index = -1, n = 0;
    for (const struct option *p = longopts; p->name; p++, n++)
        if (strncmp(p->name, name, len) == 0 && strlen(p->name) == len) {
            found = p;
            found_index = n;
            break;
        }
    if (!found) {
        /* An abbreviation: of one option, or of several that all do the same. */
        int ambiguous = 0;
        for (int i = 0; i < n; i++) {
            const struct option *p = &longopts[i];
            if (strncmp(p->name, name, len) != 0)
                continue;
            if (!found) {
                found = p;
                found_index = i;
            } else if (long_only || p->has_arg != found->has_arg || p->flag != found->flag ||
                       p->val != found->val) {
                ambiguous = 1;
            }
        }
        if (ambiguous) {
            if (print_errors) {
                flockfile(stderr);
                fprintf(stderr, "%s: option '%s%s' is ambiguous; possibilities:", argv[0], prefix,
                        name);
                /* the first match, and those that differ from it */
                for (int i = 0; i < n; i++) {
                    const struct option *p = &longopts[i];
                    if (strncmp(p->name, name, len) == 0 &&
                        (i == found_index || long_only || p->has_arg != found->has_arg ||
                         p->flag != found->flag || p->val != found->val))
                        fprintf(stderr, " '%s%s'", prefix, p->name);
                }
                fputc('\n', stderr);
                funlockfile(stderr);
            }
            parse.nextchar = NULL;
            optind++;
            parse.optopt = 0;
            return '?';
        }
    }
    if (!found) {
        if (long_only && argv[optind][1] != '-' && strchr(optstring, *name))
            return -1;
        if (print_errors)
            fprintf(stderr, "%s: unrecognized option '%s%s'\n", argv[0], prefix, name);
        parse.nextchar = NULL;
        optind++;
        parse.optopt = 0;
        return '?';
    }
    optind++;
    parse.nextchar = NULL;
    if (*end) {
        if (found->has_arg == no_argument) {
            if (print_errors)
                fprintf(stderr, "%s: option '%s%s' doesn't allow an argument\n", argv[0], prefix,
                        found->name);
            parse.optopt = found->val;
            return '?';
        }
        optarg = end + 1;
    } else if (found->has_arg == required_argument) {
        if (optind >= argc) {
            if (print_errors)
                fprintf(stderr, "%s: option '%s%s' requires an argument\n", argv[0], prefix,
                        found->name);
            parse.optopt = found->val;
            return optstring[0] == ':' ? ':' : '?';
        }
        optarg = argv[optind++];
    }
    if (longind)
        *longind = found_index;
    if (found->flag) {
        *found->flag = found->val;
        return 0;
    }
    return found->val;
}

/* A short option's missing argument: the message, and what to return. */
static int missing_argument(char **argv, const char *optstring, int c, int print_errors)
{
    if (print_errors)
        fprintf(stderr, "%s: option requires an argument -- '%c'\n", argv[0], c);
    parse.optopt = c;
    return optstring[0] == ':' ? ':' : '?';
}

static int parse_next(int argc, char *const *cargv, const char *optstring,
                      const struct option *longopts, int *longind, int long_only,
                      int posixly_correct)
{
    char **argv = (char **)cargv; /* permuted in place, as GNU getopt does */
    if (argc < 1)
        return -1;
    optarg = NULL;
    if (optind == 0 || !parse.initialized) {
        if (optind == 0)
            optind = 1;
        parse.first_nonopt = parse.last_nonopt = optind;
        parse.nextchar = NULL;
        if (optstring[0] == '-')
            parse.ordering = RETURN_IN_ORDER;
        else if (optstring[0] == '+' || posixly_correct || getenv("POSIXLY_CORRECT"))
            parse.ordering = REQUIRE_ORDER;
        else
            parse.ordering = PERMUTE;
        parse.initialized = 1;
    }
    if (optstring[0] == '-' || optstring[0] == '+')
        optstring++;
    int print_errors = opterr && optstring[0] != ':';

    if (!parse.nextchar || !*parse.nextchar) {
        /* The next element of argv. */
        if (parse.last_nonopt > optind)
            parse.last_nonopt = optind;
        if (parse.first_nonopt > optind)
            parse.first_nonopt = optind;
#define NONOPTION(i) (argv[i][0] != '-' || argv[i][1] == '\0')
        if (parse.ordering == PERMUTE) {
            if (parse.first_nonopt != parse.last_nonopt && parse.last_nonopt != optind)
                exchange(argv);
            else if (parse.last_nonopt != optind)
                parse.first_nonopt = optind;
            while (optind < argc && NONOPTION(optind))
                optind++;
            parse.last_nonopt = optind;
        }
        if (optind != argc && strcmp(argv[optind], "--") == 0) {
            optind++;
            if (parse.first_nonopt != parse.last_nonopt && parse.last_nonopt != optind)
                exchange(argv);
            else if (parse.first_nonopt == parse.last_nonopt)
                parse.first_nonopt = optind;
            parse.last_nonopt = argc;
            optind = argc;
        }
        if (optind == argc) {
            /* Done: optind at the non-options, which now follow the options. */
            if (parse.first_nonopt != parse.last_nonopt)
                optind = parse.first_nonopt;
            return -1;
        }
        if (NONOPTION(optind)) {
            if (parse.ordering == REQUIRE_ORDER)
                return -1;
            optarg = argv[optind++];
            return 1;
        }
#undef NONOPTION
        if (longopts) {
            if (argv[optind][1] == '-') {
                parse.nextchar = argv[optind] + 2;
                return long_option(argc, argv, optstring, longopts, longind, long_only,
                                   print_errors, "--");
            }
            /* getopt_long_only: "-fu" may abbreviate a long option, but "-f" stays the short
             * option f when there is one. */
            if (long_only && (argv[optind][2] || !strchr(optstring, argv[optind][1]))) {
                parse.nextchar = argv[optind] + 1;
                int code = long_option(argc, argv, optstring, longopts, longind, long_only,
                                       print_errors, "-");
                if (code != -1)
                    return code;
            }
        }
        parse.nextchar = argv[optind] + 1;
    }

    /* The next short option of the group. */
    int c = (unsigned char)*parse.nextchar++;
    const char *spec = strchr(optstring, c);
    if (!*parse.nextchar)
        optind++; /* the group's last character: the next element follows */
    if (!spec || c == ':' || c == ';') {
        if (print_errors)
            fprintf(stderr, "%s: invalid option -- '%c'\n", argv[0], c);
        parse.optopt = c;
        return '?';
    }
    if (spec[0] == 'W' && spec[1] == ';' && longopts) {
        /* "-W foo", "-Wfoo": the long option "foo". */
        if (*parse.nextchar)
            optarg = parse.nextchar;
        else if (optind == argc)
            return missing_argument(argv, optstring, c, print_errors);
        else
            optarg = argv[optind];
        parse.nextchar = optarg;
        optarg = NULL;
        return long_option(argc, argv, optstring, longopts, longind, 0, print_errors, "-W ");
    }
    if (spec[1] == ':') {
        if (*parse.nextchar) {
            optarg = parse.nextchar; /* attached: "-ovalue" */
            optind++;
        } else if (spec[2] == ':') {
            optarg = NULL; /* optional, and not attached: none */
        } else if (optind == argc) {
            c = missing_argument(argv, optstring, c, print_errors);
        } else {
            optarg = argv[optind++];
        }
        parse.nextchar = NULL;
    }
    return c;
}

static int getopt_internal(int argc, char *const *argv, const char *optstring,
                           const struct option *longopts, int *longind, int long_only,
                           int posixly_correct)
{
    int c = parse_next(argc, argv, optstring, longopts, longind, long_only, posixly_correct);
    optopt = parse.optopt;
    return c;
}

int getopt(int argc, char *const argv[], const char *optstring)
{
    return getopt_internal(argc, argv, optstring, NULL, NULL, 0, 0);
}

int __posix_getopt(int argc, char *const argv[], const char *optstring);
int __posix_getopt(int argc, char *const argv[], const char *optstring)
{
    return getopt_internal(argc, argv, optstring, NULL, NULL, 0, 1);
}

int getopt_long(int argc, char *const argv[], const char *optstring, const struct option *longopts,
                int *longind)
{
    return getopt_internal(argc, argv, optstring, longopts, longind, 0, 0);
}

int getopt_long_only(int argc, char *const argv[], const char *optstring,
                     const struct option *longopts, int *longind)
{
    return getopt_internal(argc, argv, optstring, longopts, longind, 1, 0);
}

/* Weak: a program that defines one of these itself keeps its own (and links). */
#pragma weak optarg
#pragma weak optind
#pragma weak opterr
#pragma weak optopt
#pragma weak getopt
#pragma weak __posix_getopt
#pragma weak getopt_long
#pragma weak getopt_long_only
