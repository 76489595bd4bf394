/* The data every rank writes: word w of writer r's stream is a hash of (seed, r, w), so that
 * any reader can check any offset, and a read that did nothing (poisoned buffer) cannot pass. */
#include "pario/pattern.h"

static uint64_t mix(uint64_t z) {
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

static uint64_t stream_key(uint64_t seed, int writer) {
  return mix(seed ^ mix((uint64_t)(uint32_t)writer + 0x632be59bd9b4e019ULL));
}

uint64_t pario_data_word(uint64_t seed, int writer, uint64_t word) {
  return mix(stream_key(seed, writer) + word * 0x9e3779b97f4a7c15ULL);
}

void pario_data_fill(uint64_t seed, int writer, uint64_t first_word, uint64_t *dst, uint64_t nwords) {
  uint64_t key = stream_key(seed, writer);
  for (uint64_t k = 0; k < nwords; k++) dst[k] = mix(key + (first_word + k) * 0x9e3779b97f4a7c15ULL);
}

uint64_t pario_data_check(uint64_t seed, int writer, uint64_t first_word, const uint64_t *src,
                          uint64_t nwords, uint64_t *first_bad) {
  uint64_t key = stream_key(seed, writer), bad = 0;
  *first_bad = UINT64_MAX;
  for (uint64_t k = 0; k < nwords; k++) {
    if (src[k] != mix(key + (first_word + k) * 0x9e3779b97f4a7c15ULL)) {
      if (!bad) *first_bad = k;
      bad++;
    }
  }
  return bad;
}
