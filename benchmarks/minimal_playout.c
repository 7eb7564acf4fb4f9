/* The yardstick's game in C: how fast can this machine play random deals at all?
 *
 * `bonken-sim bench` measures the engine against a minimal numba kernel
 * (bonken_sim/bench_baseline.py). This is the same game written in plain C, as a check that
 * the yardstick is not slow because it is numba: deal 52 cards with a Fisher-Yates shuffle,
 * then 13 tricks with a uniformly random legal card (follow suit, else anything), the
 * highest card of the led suit wins and leads next. Nothing else: no scoring tables, no
 * output, no strategies.
 *
 *     gcc -O3 -march=native -o /tmp/minimal_playout benchmarks/minimal_playout.c
 *     /tmp/minimal_playout            # deal-playouts per CPU-second of one thread
 *
 * On the 2-core AMD EPYC (2.0 GHz) of 30 November 2026 it made 0.89-0.91 million playouts
 * per CPU-second, below the numba yardstick's 1.0-1.16 million on the same machine.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static const uint64_t SUIT_MASK[4] = {0x1FFFULL, 0x1FFFULL << 13, 0x1FFFULL << 26,
                                      0x1FFFULL << 39};
static unsigned char SUIT_OF[64];
static unsigned char SELECT8[256][8]; /* SELECT8[b][k]: the k-th set bit of byte b */

/* wyrand: one 64x64->128 multiply per draw */
static inline uint64_t next_draw(uint64_t *s) {
    *s += 0xa0761d6478bd642fULL;
    __uint128_t t = (__uint128_t)*s * (*s ^ 0xe7037ed1a0b428dbULL);
    return (uint64_t)(t >> 64) ^ (uint64_t)t;
}

/* index of the k-th (0-based) set bit of x, branch-free: byte counts, then a byte table */
static inline int select_bit(uint64_t x, int k) {
    uint64_t s = x - ((x >> 1) & 0x5555555555555555ULL);
    s = (s & 0x3333333333333333ULL) + ((s >> 2) & 0x3333333333333333ULL);
    s = (s + (s >> 4)) & 0x0F0F0F0F0F0F0F0FULL;
    uint64_t upto = s * 0x0101010101010101ULL; /* byte i: set bits in bytes 0..i */
    uint64_t kk = (uint64_t)k * 0x0101010101010101ULL;
    uint64_t le = ((kk | 0x8080808080808080ULL) - upto) & 0x8080808080808080ULL;
    int b = __builtin_popcountll(le); /* the byte holding the k-th bit */
    int before = b ? (int)((upto >> (8 * b - 8)) & 0xFF) : 0;
    return 8 * b + SELECT8[(x >> (8 * b)) & 0xFF][k - before];
}

int main(int argc, char **argv) {
    long deals = argc > 1 ? atol(argv[1]) : 2000000;
    for (int c = 0; c < 64; c++) SUIT_OF[c] = (unsigned char)(c / 13);
    for (int v = 0; v < 256; v++) {
        int n = 0;
        for (int i = 0; i < 8; i++)
            if (v >> i & 1) SELECT8[v][n++] = (unsigned char)i;
    }
    uint64_t state = 12345;
    long checksum = 0; /* tricks of seat 0, so the compiler cannot drop the play */
    struct timespec t0, t1;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t0);
    for (long d = 0; d < deals; d++) {
        int deck[52];
        for (int i = 0; i < 52; i++) deck[i] = i;
        for (int i = 51; i > 0; i--) {
            uint32_t r = (uint32_t)next_draw(&state);
            int j = (int)(((uint64_t)r * (uint64_t)(i + 1)) >> 32);
            int t = deck[i];
            deck[i] = deck[j];
            deck[j] = t;
        }
        uint64_t hand[4] = {0, 0, 0, 0};
        for (int i = 0; i < 52; i++) hand[i & 3] |= 1ULL << deck[i];
        int leader = 1, tricks0 = 0;
        for (int t = 0; t < 13; t++) {
            int led = 0, win = 0, winner = leader;
            for (int pos = 0; pos < 4; pos++) {
                int p = (leader + pos) & 3;
                uint64_t h = hand[p], legal = h;
                if (pos) {
                    uint64_t follow = h & SUIT_MASK[led];
                    legal = follow ? follow : h;
                }
                uint32_t r = (uint32_t)next_draw(&state);
                int k = (int)(((uint64_t)r * (uint64_t)__builtin_popcountll(legal)) >> 32);
                int c = select_bit(legal, k);
                hand[p] = h & ~(1ULL << c);
                if (!pos) {
                    led = SUIT_OF[c];
                    win = c;
                } else {
                    int beats = (SUIT_OF[c] == led) & (c > win);
                    win = beats ? c : win;
                    winner = beats ? p : winner;
                }
            }
            tricks0 += winner == 0;
            leader = winner;
        }
        checksum += tricks0;
    }
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t1);
    double sec = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) * 1e-9;
    printf("%.3f million deal-playouts per CPU-second (%ld deals, checksum %ld)\n",
           (double)deals / sec / 1e6, deals, checksum);
    return 0;
}
