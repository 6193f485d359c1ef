/* SPDX-License-Identifier: BSD-3-Clause */
/* Fuzz test of the parser of saved meshes (lib/serialize_text.c, pure C, no
 * MPI call), built with -fsanitize=address,undefined by
 * test/fuzz-deserialize.sh. Each iteration parses one text, either random
 * bytes or a valid text mutated a few times (bytes flipped, inserted,
 * deleted, chunks repeated, numbers replaced by boundary values, lines
 * dropped, the text cut short). Each text sits in a buffer of exactly its
 * size, so that the sanitizer sees any read past the NUL.
 *
 * Checked on every iteration: a failure is DMESH_ERR_ARG whose detail names
 * line, column and byte offset, or DMESH_ERR_NOMEM; a success prints a text
 * that parses again into the same text (a fixed point); the valid seeds
 * print back to themselves. The sanitizers report crashes, leaks and
 * undefined behaviour and make the run fail.
 *
 *   fuzz_deserialize [ITERATIONS [SEED]]      (default 1000000, 1) */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "serialize_text.h"

static const char *const seeds[] = {
    "dmesh-mesh 1\ndevice cpu\nranks 8 identity\nroot \"dp\" 2:4\nroot \"cp\" 2:2\n"
    "root \"tp\" 2:1\nflat \"dp_cp\" 4:2 mpi\nflat \"dp_tp\" (2,2):(4,1) mpi\n"
    "dim \"dp\" 2:4 mpi\ndim \"tp\" 2:1 mpi\nis-root 0\nend\n",
    "dmesh-mesh 1\ndevice cpu\nranks 4 : 3 1 2 0\nroot - 2:2\nroot - 2:1\ndim - 2:2 mpi\n"
    "dim - 2:1 mpi\nis-root 1\nend\n",
    "dmesh-mesh 1\ndevice cuda\nranks 6 identity\nroot \"a\\x22b\\x5c\" 6:1\n"
    "dim \"x\" 3:2 nccl 5 1 -1 4 -1 -1 \"ib0\"\ndim \"y\" 2:1 nccl 0 0 0 0 0 0 \"\"\n"
    "is-root 0\nend\n",
    "dmesh-mesh 1\ndevice cpu\nranks 1 identity\nroot - 1:0\ndim - 1:0 mpi\nis-root 1\nend\n",
    "dmesh-mesh 1\ndevice cpu\nranks 16 identity\nroot \"r\" 4:4\nroot \"c\" 4:1\n"
    "flat \"rc\" 16:1 mpi\ndim \"q\" (2,2):(8,2) mpi\ndim \"s\" (2,2):(4,1) mpi\nis-root 0\nend\n",
};
#define NSEEDS (sizeof(seeds) / sizeof(seeds[0]))

static const char alphabet[] = "0123456789 \t\n\"\\x-:(),identyrootflatdimcpunclsend\x01\xff";
static const char *const numbers[] = {
    "0", "1", "-1", "2147483647", "2147483648", "-2147483648", "99999999999999", "00", "-", "1e3"};

static uint64_t state;

static uint64_t next(void) /* xorshift64* */
{
    state ^= state >> 12;
    state ^= state << 25;
    state ^= state >> 27;
    return state * 2685821657736338717ULL;
}

static size_t below(size_t n)
{
    return n ? (size_t)(next() % n) : 0;
}

#define CAP 4096

/* One random edit of buf (length *len, capacity CAP). */
static void mutate(char *buf, size_t *len)
{
    size_t at = below(*len + 1), k;

    switch (below(8)) {
    case 0: /* flip a byte */
        if (*len)
            buf[below(*len)] ^= (char)(1u << below(8));
        break;
    case 1: /* insert a byte of the grammar */
        if (*len + 1 < CAP) {
            memmove(buf + at + 1, buf + at, *len - at);
            buf[at] = alphabet[below(sizeof(alphabet) - 1)];
            (*len)++;
        }
        break;
    case 2: /* delete a run */
        k = below(8) + 1;
        if (at + k <= *len) {
            memmove(buf + at, buf + at + k, *len - at - k);
            *len -= k;
        }
        break;
    case 3: { /* repeat a chunk */
        size_t from = below(*len), n = below(64) + 1;
        char chunk[64];
        if (from + n <= *len && *len + n < CAP) {
            memcpy(chunk, buf + from, n);
            memmove(buf + at + n, buf + at, *len - at);
            memcpy(buf + at, chunk, n);
            *len += n;
        }
        break;
    }
    case 4: { /* a boundary number in place of a digit run */
        const char *num = numbers[below(sizeof(numbers) / sizeof(numbers[0]))];
        size_t n = strlen(num), end = at;
        while (end < *len && buf[end] >= '0' && buf[end] <= '9')
            end++;
        if (*len - (end - at) + n < CAP) {
            memmove(buf + at + n, buf + end, *len - end);
            memcpy(buf + at, num, n);
            *len = *len - (end - at) + n;
        }
        break;
    }
    case 5: /* drop a line */
        for (k = at; k < *len && buf[k] != '\n'; k++)
            ;
        if (k < *len) {
            memmove(buf + at, buf + k + 1, *len - k - 1);
            *len -= k + 1 - at;
        }
        break;
    case 6: /* cut short */
        *len = at;
        break;
    default: /* a random byte anywhere */
        if (*len)
            buf[below(*len)] = (char)(1 + below(255));
        break;
    }
}

static int failures;

static void check(int cond, const char *what, const char *text)
{
    if (cond)
        return;
    if (failures++ < 5)
        fprintf(stderr, "fuzz_deserialize: %s\n--- text:\n%s\n--- detail: %s\n", what, text,
                dmesh_last_error());
}

/* Parse text (exact-size copy); on success the printed form must be a fixed point. */
static int run_one(const char *buf, size_t len)
{
    char *text = malloc(len + 1), *out, *again;
    dmesh_saved_t s, t;
    size_t need = 0, need2 = 0;
    int err;

    memcpy(text, buf, len);
    text[len] = '\0';
    err = dmesh_saved_parse(text, &s);
    if (err != DMESH_SUCCESS) {
        check((err == DMESH_ERR_ARG && strstr(dmesh_last_error(), "line ") != NULL &&
               strstr(dmesh_last_error(), "byte ") != NULL) ||
                  err == DMESH_ERR_NOMEM,
              "failure without class ARG and a position", text);
        free(text);
        return 0;
    }
    dmesh_saved_print(&s, NULL, 0, &need);
    out = malloc(need + 1);
    dmesh_saved_print(&s, out, need + 1, NULL);
    check(dmesh_saved_parse(out, &t) == DMESH_SUCCESS, "printed text does not parse", out);
    dmesh_saved_print(&t, NULL, 0, &need2);
    again = malloc(need2 + 1);
    dmesh_saved_print(&t, again, need2 + 1, NULL);
    check(strcmp(out, again) == 0, "printed text is not a fixed point", out);
    dmesh_saved_free(&t);
    dmesh_saved_free(&s);
    free(again);
    free(out);
    free(text);
    return 1;
}

int main(int argc, char **argv)
{
    long iterations = argc > 1 ? atol(argv[1]) : 1000000, accepted = 0;
    char buf[CAP];
    size_t len;
    clock_t t0 = clock();
    double secs;

    state = (argc > 2 ? strtoull(argv[2], NULL, 10) : 1) * 0x9e3779b97f4a7c15ULL + 1;
    for (size_t i = 0; i < NSEEDS; i++) { /* the seeds are valid and print back to themselves */
        dmesh_saved_t s;
        char out[CAP];
        check(dmesh_saved_parse(seeds[i], &s) == DMESH_SUCCESS, "seed does not parse", seeds[i]);
        dmesh_saved_print(&s, out, sizeof(out), NULL);
        check(strcmp(out, seeds[i]) == 0, "seed does not print back to itself", seeds[i]);
        dmesh_saved_free(&s);
    }
    for (long it = 0; it < iterations; it++) {
        if (below(10) == 0) { /* random bytes */
            len = below(200);
            for (size_t k = 0; k < len; k++)
                buf[k] = below(4) ? alphabet[below(sizeof(alphabet) - 1)] : (char)(1 + below(255));
        } else {
            const char *seed = seeds[below(NSEEDS)];
            len = strlen(seed);
            memcpy(buf, seed, len);
            for (size_t m = below(4) + 1; m > 0; m--)
                mutate(buf, &len);
        }
        accepted += run_one(buf, len);
    }
    secs = (double)(clock() - t0) / CLOCKS_PER_SEC;
    printf("fuzz_deserialize: %ld texts (%ld accepted) in %.2f s, %.0f texts/s, %d failure(s)\n",
           iterations, accepted, secs, iterations / (secs > 0 ? secs : 1e-9), failures);
    return failures == 0 ? 0 : 1;
}
