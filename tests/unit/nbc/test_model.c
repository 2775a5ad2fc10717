/*
 * Unit tests of nbc/model.c, the split-tree model: tree heights and level counts, predicted times
 * computed by hand (the arithmetic is in the comments), the choices of S that the Euro-Par 2018
 * paper reports for its 64-core machine, the rule for P = 0, and the doubling kind.
 */
#include "config.h"

#include <check.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nbc/model.h"

#define K_CONST  TM_NBC_MODEL_CONSTANT
#define K_DOUBLE TM_NBC_MODEL_DOUBLING
#define EPS      1e-9

/* C(N) on 64 cores: 64 / N * H(64) = 384 / N for the constant kind, 64 / N * (2^6 - 1) = 4032 / N
 * for the doubling kind. */
#define C64(n)          (384.0 / (n))
#define C64_DOUBLING(n) (4032.0 / (n))

START_TEST(test_height)
{
    /* ceil(log2 N) */
    ck_assert_int_eq(tm_nbc_model_height(1), 0);
    ck_assert_int_eq(tm_nbc_model_height(2), 1);
    ck_assert_int_eq(tm_nbc_model_height(3), 2); /* 2 < 3 <= 4 */
    ck_assert_int_eq(tm_nbc_model_height(5), 3); /* 4 < 5 <= 8 */
    ck_assert_int_eq(tm_nbc_model_height(8), 3);
    ck_assert_int_eq(tm_nbc_model_height(13), 4); /* 8 < 13 <= 16 */
    ck_assert_int_eq(tm_nbc_model_height(16), 4);
    ck_assert_int_eq(tm_nbc_model_height(33), 6); /* 32 < 33 <= 64 */
    ck_assert_int_eq(tm_nbc_model_height(57), 6);
    ck_assert_int_eq(tm_nbc_model_height(64), 6);
    ck_assert_int_eq(tm_nbc_model_height(65), 7);
    ck_assert_int_eq(tm_nbc_model_height(0), 0);
}
END_TEST

static void expect_levels(int n, const int *expected, int h)
{
    ck_assert_int_eq(tm_nbc_model_height(n), h);
    for (int i = 1; i <= h; i++)
        ck_assert_msg(tm_nbc_model_level_comms(n, i) == expected[i - 1],
                      "F(%d,%d) = %d, expected %d", n, i, tm_nbc_model_level_comms(n, i),
                      expected[i - 1]);
    /* Outside the tree: no transfer. */
    ck_assert_int_eq(tm_nbc_model_level_comms(n, 0), 0);
    ck_assert_int_eq(tm_nbc_model_level_comms(n, h + 1), 0);
}

/* F(N,i) = floor((N - 1 + m) / 2m) with m = 2^(H-i): the ranks r < N that are odd multiples of m
 * receive at level i. */
START_TEST(test_level_comms)
{
    /* N = 1: no level at all. */
    ck_assert_int_eq(tm_nbc_model_level_comms(1, 1), 0);
    /* N = 2, H = 1: i=1, m=1: (1+1)/2 = 1. */
    expect_levels(2, (const int[]){1}, 1);
    /* N = 3, H = 2: i=1, m=2: (2+2)/4 = 1 (rank 2); i=2, m=1: (2+1)/2 = 1 (rank 1). */
    expect_levels(3, (const int[]){1, 1}, 2);
    /* N = 5, H = 3: m=4: (4+4)/8 = 1; m=2: (4+2)/4 = 1; m=1: (4+1)/2 = 2 (ranks 1, 3). The paper's
     * printed formula gives 1/2, 1, 3 here (L=2, R=1: 2^-1 + 0, 2^0 + floor(3/4), 2^1 +
     * floor(2/2)). */
    expect_levels(5, (const int[]){1, 1, 2}, 3);
    /* N = 8: powers of two, 1, 2, 4. */
    expect_levels(8, (const int[]){1, 2, 4}, 3);
    /* N = 13, H = 4: (12+8)/16 = 1; (12+4)/8 = 2; (12+2)/4 = 3; (12+1)/2 = 6. Sum 12. */
    expect_levels(13, (const int[]){1, 2, 3, 6}, 4);
    expect_levels(16, (const int[]){1, 2, 4, 8}, 4);
    /* N = 33, H = 6: (32+32)/64 = 1; (32+16)/32 = 1; (32+8)/16 = 2; (32+4)/8 = 4; (32+2)/4 = 8;
     * (32+1)/2 = 16. Sum 32. */
    expect_levels(33, (const int[]){1, 1, 2, 4, 8, 16}, 6);
    /* N = 57, H = 6: (56+32)/64 = 1; (56+16)/32 = 2; (56+8)/16 = 4; (56+4)/8 = 7; (56+2)/4 = 14;
     * (56+1)/2 = 28. Sum 56. (Printed formula: 1/2, 2, 4, 7, 14, 29.) */
    expect_levels(57, (const int[]){1, 2, 4, 7, 14, 28}, 6);
    expect_levels(64, (const int[]){1, 2, 4, 8, 16, 32}, 6);
}
END_TEST

/* Every rank but the root receives exactly once, and a level never has more transfers than
 * ranks holding the data before it; checked against a count made rank by rank. */
START_TEST(test_level_comms_sum)
{
    for (int n = 2; n <= 1024; n++) {
        int h = tm_nbc_model_height(n), sum = 0, holders = 1;

        for (int i = 1; i <= h; i++) {
            int f = tm_nbc_model_level_comms(n, i);
            int by_rank = 0;

            /* Rank r receives at the level H - (its lowest set bit). */
            for (int r = 1; r < n; r++)
                by_rank += h - __builtin_ctz((unsigned)r) == i;
            ck_assert_msg(f == by_rank, "F(%d,%d) = %d, rank by rank %d", n, i, f, by_rank);
            ck_assert_msg(f >= 1 && f <= holders, "F(%d,%d) = %d with %d holders", n, i, f,
                          holders);
            sum += f;
            holders += f;
        }
        ck_assert_msg(sum == n - 1, "sum of F(%d, i) = %d", n, sum);
    }
}
END_TEST

START_TEST(test_t_nonblocking)
{
    /* Section 3's example: 16 ranks, one communication core. S=0: 1+2+4+8 = 15 steps folded;
     * S=1: 1 on the ranks + (1+2+4) = 8, twice as fast; S=4: the blocking time, 4. */
    ck_assert_double_eq_tol(tm_nbc_model_t_nonblocking(K_CONST, 0, 16, 1), 15.0, EPS);
    ck_assert_double_eq_tol(tm_nbc_model_t_nonblocking(K_CONST, 1, 16, 1), 8.0, EPS);
    ck_assert_double_eq_tol(tm_nbc_model_t_nonblocking(K_CONST, 4, 16, 1), 4.0, EPS);
    /* S beyond the height counts as H. */
    ck_assert_double_eq_tol(tm_nbc_model_t_nonblocking(K_CONST, 9, 16, 1), 4.0, EPS);
    /* N = 57, P = 7: F = 1,2,4,7,14,28, ceil(F/7) = 1,1,1,1,2,4. S=0: 10; S=1: 1 + (1+1+1+1+2)
     * = 7; S=3: 3 + (1+1+1) = 6. */
    ck_assert_double_eq_tol(tm_nbc_model_t_nonblocking(K_CONST, 0, 57, 7), 10.0, EPS);
    ck_assert_double_eq_tol(tm_nbc_model_t_nonblocking(K_CONST, 1, 57, 7), 7.0, EPS);
    ck_assert_double_eq_tol(tm_nbc_model_t_nonblocking(K_CONST, 3, 57, 7), 6.0, EPS);
    /* One rank: no tree. */
    ck_assert_double_eq_tol(tm_nbc_model_t_nonblocking(K_CONST, 0, 1, 5), 0.0, EPS);
    ck_assert(isnan(tm_nbc_model_t_nonblocking(K_CONST, -1, 16, 1)));
    ck_assert(isnan(tm_nbc_model_t_nonblocking(K_CONST, 0, 0, 1)));
}
END_TEST

START_TEST(test_t_overlapped)
{
    /* N = 57, P = 7, C = 384/57 = 6.7368...; folded sums from ceil(F/7) = 1,1,1,1,2,4:
     * S=0: 0 + max(C, 10) = 10; S=1: 1 + max(C, 6) = 1 + C; S=2: 2 + max(C, 4) = 2 + C;
     * S=6: 6 + max(C, 0) = 6 + C. */
    ck_assert_double_eq_tol(tm_nbc_model_t_overlapped(K_CONST, 0, 57, 64), 10.0, EPS);
    ck_assert_double_eq_tol(tm_nbc_model_t_overlapped(K_CONST, 1, 57, 64), 1 + C64(57), EPS);
    ck_assert_double_eq_tol(tm_nbc_model_t_overlapped(K_CONST, 2, 57, 64), 2 + C64(57), EPS);
    ck_assert_double_eq_tol(tm_nbc_model_t_overlapped(K_CONST, 6, 57, 64), 6 + C64(57), EPS);
    /* N = 60, P = 4, C = 6.4; F = 1,2,4,7,15,30 (59+32)/64, (59+16)/32, (59+8)/16, (59+4)/8,
     * (59+2)/4, (59+1)/2; ceil(F/4) = 1,1,1,2,4,8. S=0: 17; S=1: 1 + 9 = 10; S=2: 2 + max(6.4, 5)
     * = 8.4; S=3: 3 + max(6.4, 3) = 9.4. */
    ck_assert_double_eq_tol(tm_nbc_model_t_overlapped(K_CONST, 0, 60, 64), 17.0, EPS);
    ck_assert_double_eq_tol(tm_nbc_model_t_overlapped(K_CONST, 1, 60, 64), 10.0, EPS);
    ck_assert_double_eq_tol(tm_nbc_model_t_overlapped(K_CONST, 2, 60, 64), 8.4, EPS);
    ck_assert_double_eq_tol(tm_nbc_model_t_overlapped(K_CONST, 3, 60, 64), 9.4, EPS);
    /* N = 62, P = 2, C = 384/62 = 6.1935...; F = 1,2,4,8,15,31, ceil(F/2) = 1,1,2,4,8,16.
     * S=0: 32; S=1: 1 + 16 = 17; S=2: 2 + 8 = 10; S=3: 3 + max(C, 4) = 3 + C; S=4: 4 + C. */
    ck_assert_double_eq_tol(tm_nbc_model_t_overlapped(K_CONST, 0, 62, 64), 32.0, EPS);
    ck_assert_double_eq_tol(tm_nbc_model_t_overlapped(K_CONST, 1, 62, 64), 17.0, EPS);
    ck_assert_double_eq_tol(tm_nbc_model_t_overlapped(K_CONST, 2, 62, 64), 10.0, EPS);
    ck_assert_double_eq_tol(tm_nbc_model_t_overlapped(K_CONST, 3, 62, 64), 3 + C64(62), EPS);
    ck_assert_double_eq_tol(tm_nbc_model_t_overlapped(K_CONST, 4, 62, 64), 4 + C64(62), EPS);
    /* N = 51, P = 13, C = 384/51 = 7.529...; F = 1,2,3,6,13,25, ceil(F/13) = 1,1,1,1,1,2.
     * S=0: max(C, 7) = C; S=1: 1 + max(C, 5) = 1 + C. */
    ck_assert_double_eq_tol(tm_nbc_model_t_overlapped(K_CONST, 0, 51, 64), C64(51), EPS);
    ck_assert_double_eq_tol(tm_nbc_model_t_overlapped(K_CONST, 1, 51, 64), 1 + C64(51), EPS);
    /* N = 52, P = 12, C = 384/52 = 7.38...; F = 1,2,3,6,13,26, ceil(F/12) = 1,1,1,1,2,3.
     * S=0: max(C, 9) = 9; S=1: 1 + max(C, 6) = 1 + C = 8.38: S=1 wins from here. */
    ck_assert_double_eq_tol(tm_nbc_model_t_overlapped(K_CONST, 0, 52, 64), 9.0, EPS);
    ck_assert_double_eq_tol(tm_nbc_model_t_overlapped(K_CONST, 1, 52, 64), 1 + C64(52), EPS);
    ck_assert(isnan(tm_nbc_model_t_overlapped(K_CONST, 0, 8, 0)));
}
END_TEST

/* Section 4, "Discussion and tuning", for 64 cores: S=0 up to N = 51 (the absolute minimum is
 * S=0, N=51), S=1 for N = 57, S=2 for N = 60, S=3 for N = 62; section 6 gives the switch
 * points: S=1 from 52 ranks, S=2 from 58, S=3 from 62. */
START_TEST(test_choose_paper)
{
    for (int n = 2; n <= 51; n++)
        ck_assert_msg(tm_nbc_model_choose(K_CONST, n, 64) == 0, "N=%d: S=%d", n,
                      tm_nbc_model_choose(K_CONST, n, 64));
    ck_assert_int_eq(tm_nbc_model_choose(K_CONST, 52, 64), 1);
    ck_assert_int_eq(tm_nbc_model_choose(K_CONST, 57, 64), 1);
    ck_assert_int_eq(tm_nbc_model_choose(K_CONST, 58, 64), 2);
    ck_assert_int_eq(tm_nbc_model_choose(K_CONST, 60, 64), 2);
    ck_assert_int_eq(tm_nbc_model_choose(K_CONST, 61, 64), 2);
    ck_assert_int_eq(tm_nbc_model_choose(K_CONST, 62, 64), 3);
    ck_assert_int_eq(tm_nbc_model_choose(K_CONST, 63, 64), 3);

    /* The absolute minimum over all N and S is at S=0, N=51. */
    double best = INFINITY;
    int best_n = 0, best_s = -1;
    for (int n = 2; n < 64; n++)
        for (int s = 0; s <= tm_nbc_model_height(n); s++) {
            double t = tm_nbc_model_t_overlapped(K_CONST, s, n, 64);
            if (t < best) {
                best = t;
                best_n = n;
                best_s = s;
            }
        }
    ck_assert_int_eq(best_n, 51);
    ck_assert_int_eq(best_s, 0);
}
END_TEST

/* The choice is the argmin, the smaller S on a tie: with one rank on 2 cores the tree is empty,
 * every S costs C(1) = 2 and S = 0 (= H) is taken; N = 2 on 4 cores: C = 4, S=0: max(4, 1) = 4,
 * S=1: 1 + 4 = 5. */
START_TEST(test_choose_small)
{
    ck_assert_int_eq(tm_nbc_model_choose(K_CONST, 1, 2), 0);
    ck_assert_double_eq_tol(tm_nbc_model_t_overlapped(K_CONST, 0, 2, 4), 4.0, EPS);
    ck_assert_double_eq_tol(tm_nbc_model_t_overlapped(K_CONST, 1, 2, 4), 5.0, EPS);
    ck_assert_int_eq(tm_nbc_model_choose(K_CONST, 2, 4), 0);
    ck_assert_int_eq(tm_nbc_model_choose(K_CONST, 0, 4), -EINVAL);
    ck_assert_int_eq(tm_nbc_model_choose(K_CONST, 4, 0), -EINVAL);
}
END_TEST

/* P = 0 (or fewer): no progress-thread core, the blocking schedule: S = H. */
START_TEST(test_no_progress_core)
{
    ck_assert_int_eq(tm_nbc_model_choose(K_CONST, 64, 64), 6);
    ck_assert_int_eq(tm_nbc_model_choose(K_CONST, 70, 64), 7);
    ck_assert_int_eq(tm_nbc_model_choose(K_DOUBLE, 64, 64), 6);
    ck_assert_int_eq(tm_nbc_model_choose(K_CONST, 3, 3), 2);
    /* Levels left to fold onto no core never end; none left: the ranks' own time. */
    ck_assert(isinf(tm_nbc_model_t_nonblocking(K_CONST, 0, 16, 0)));
    ck_assert(isinf(tm_nbc_model_t_nonblocking(K_CONST, 3, 16, 0)));
    ck_assert_double_eq_tol(tm_nbc_model_t_nonblocking(K_CONST, 4, 16, 0), 4.0, EPS);
    ck_assert(isinf(tm_nbc_model_t_overlapped(K_CONST, 5, 64, 64)));
    /* S = H on all 64 cores: 6 + C(64) = 6 + 6. */
    ck_assert_double_eq_tol(tm_nbc_model_t_overlapped(K_CONST, 6, 64, 64), 12.0, EPS);
}
END_TEST

/* Doubling kind: level i weighs 2^(H-i); the S levels on the ranks cost 2^S - 1. */
START_TEST(test_doubling)
{
    /* N = 16, one communication core: weights 8,4,2,1, F = 1,2,4,8, so every folded level costs
     * 8 (8*1, 4*2, 2*4, 1*8). S=0: 32; S=1: 1 + 3*8 = 25; S=4: 1+2+4+8 = 15. */
    ck_assert_double_eq_tol(tm_nbc_model_t_nonblocking(K_DOUBLE, 0, 16, 1), 32.0, EPS);
    ck_assert_double_eq_tol(tm_nbc_model_t_nonblocking(K_DOUBLE, 1, 16, 1), 25.0, EPS);
    ck_assert_double_eq_tol(tm_nbc_model_t_nonblocking(K_DOUBLE, 4, 16, 1), 15.0, EPS);
    /* N = 16 on 64 cores, P = 48: every ceil(F/48) = 1. T_nb(S=2) = 3 + (8+4) = 15;
     * C = 4032/16 = 252: T_ov(S=0) = max(252, 15) = 252, T_ov(S=2) = 3 + 252 = 255. */
    ck_assert_double_eq_tol(tm_nbc_model_t_nonblocking(K_DOUBLE, 2, 16, 48), 15.0, EPS);
    ck_assert_double_eq_tol(tm_nbc_model_t_overlapped(K_DOUBLE, 0, 16, 64), 252.0, EPS);
    ck_assert_double_eq_tol(tm_nbc_model_t_overlapped(K_DOUBLE, 2, 16, 64), 255.0, EPS);
    ck_assert_int_eq(tm_nbc_model_choose(K_DOUBLE, 16, 64), 0);
    /* N = 62, P = 2: ceil(F/2) = 1,1,2,4,8,16 with weights 32,16,8,4,2,1 = 32,16,16,16,16,16.
     * C = 4032/62 = 65.03. S=0: 112; S=2: 3 + (32+16+16+16) = 83; S=3: 7 + max(C, 64) = 7 + C;
     * S=4: 15 + max(C, 48) = 15 + C. S=3 wins. */
    ck_assert_double_eq_tol(tm_nbc_model_t_overlapped(K_DOUBLE, 0, 62, 64), 112.0, EPS);
    ck_assert_double_eq_tol(tm_nbc_model_t_overlapped(K_DOUBLE, 2, 62, 64), 83.0, EPS);
    ck_assert_double_eq_tol(tm_nbc_model_t_overlapped(K_DOUBLE, 3, 62, 64), 7 + C64_DOUBLING(62),
                            EPS);
    ck_assert_double_eq_tol(tm_nbc_model_t_overlapped(K_DOUBLE, 4, 62, 64), 15 + C64_DOUBLING(62),
                            EPS);
    ck_assert_int_eq(tm_nbc_model_choose(K_DOUBLE, 62, 64), 3);
    /* N = 63, P = 1, C = 64: F = 1,2,4,8,16,31. S=3: 7 + (32 + 32 + 32) = 103; S=4: 15 +
     * max(64, 32 + 32) = 79; S=5: 31 + max(64, 32) = 95. S=4 wins. */
    ck_assert_double_eq_tol(tm_nbc_model_t_overlapped(K_DOUBLE, 3, 63, 64), 103.0, EPS);
    ck_assert_double_eq_tol(tm_nbc_model_t_overlapped(K_DOUBLE, 4, 63, 64), 79.0, EPS);
    ck_assert_double_eq_tol(tm_nbc_model_t_overlapped(K_DOUBLE, 5, 63, 64), 95.0, EPS);
    ck_assert_int_eq(tm_nbc_model_choose(K_DOUBLE, 63, 64), 4);
}
END_TEST

/* The table: 2 + 62 lines per block on 64 cores, each choice as tm_nbc_model_choose says. */
START_TEST(test_print)
{
    char *text = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&text, &len);

    ck_assert_ptr_nonnull(out);
    tm_nbc_model_print(out, 64);
    ck_assert_int_eq(fclose(out), 0);

    int block = -1, lines[2] = {0, 0};
    char *save = NULL;
    for (char *line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
        if (strcmp(line, "# bcast, reduce, allreduce") == 0) {
            block = 0;
            continue;
        }
        if (strcmp(line, "# scatter, gather") == 0) {
            block = 1;
            continue;
        }
        if (line[0] == '#')
            continue;
        ck_assert_int_ge(block, 0);
        int n, p, s, consumed;
        ck_assert_int_eq(sscanf(line, "N=%d P=%d S=%d %n", &n, &p, &s, &consumed), 3);
        ck_assert_int_eq(n, lines[block] + 2);
        ck_assert_int_eq(p, 64 - n);
        tm_nbc_model_kind_t kind = block ? K_DOUBLE : K_CONST;
        ck_assert_int_eq(s, tm_nbc_model_choose(kind, n, 64));
        /* One T(S=s) per S in 0..H, in order. */
        const char *rest = line + consumed;
        int h = tm_nbc_model_height(n);
        for (int k = 0; k <= h; k++) {
            int sk, used;
            double t;
            ck_assert_int_eq(sscanf(rest, "T(S=%d)=%lf %n", &sk, &t, &used), 2);
            ck_assert_int_eq(sk, k);
            /* Printed to two decimals: off by half a hundredth at most. */
            ck_assert_double_eq_tol(t, tm_nbc_model_t_overlapped(kind, k, n, 64), 0.00501);
            rest += used;
        }
        ck_assert_str_eq(rest, "");
        lines[block]++;
    }
    ck_assert_int_eq(lines[0], 62);
    ck_assert_int_eq(lines[1], 62);
    free(text);
}
END_TEST

static Suite *model_suite(void)
{
    Suite *s = suite_create("nbc_model");
    TCase *tc = tcase_create("model");

    tcase_add_test(tc, test_height);
    tcase_add_test(tc, test_level_comms);
    tcase_add_test(tc, test_level_comms_sum);
    tcase_add_test(tc, test_t_nonblocking);
    tcase_add_test(tc, test_t_overlapped);
    tcase_add_test(tc, test_choose_paper);
    tcase_add_test(tc, test_choose_small);
    tcase_add_test(tc, test_no_progress_core);
    tcase_add_test(tc, test_doubling);
    tcase_add_test(tc, test_print);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(model_suite());
    int failed;

    srunner_run_all(sr, CK_NORMAL);
    failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
