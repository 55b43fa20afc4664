#pragma once
// One block of memory for all of a hash ring's arrays, allocated once per
// build and shared by copies of the ring (the ring is immutable).
//
// Why: a large ring's arrays (4 MiB for md5 1024 x 128) are fresh memory,
// and every fresh 4 KiB page costs a page fault on first touch: ~1,000
// faults, a quarter of the whole build here and more than the whole
// computation on virtual machines where faults are dear (docs/benchmarks.md).
// On Linux with transparent huge pages available ("always" or "madvise"), a
// block of 2 MiB or more is mapped on a 2 MiB boundary with MADV_HUGEPAGE:
// a few faults instead of a thousand. Otherwise it is one malloc'd block,
// which malloc recycles for the next build without faults.
// Errors: std::bad_alloc when the memory cannot be had.
#include <cstddef>
#include <memory>

namespace docshard::detail {

// At least `bytes` bytes (bytes > 0), aligned to 64, contents unspecified.
// The block lives while a copy of the returned pointer does.
std::shared_ptr<std::byte> AllocateRingMemory(std::size_t bytes);

// Lays arrays out one after another in a block, each aligned to 64 bytes:
// first count the bytes with Add (offsets), then place them with At.
class RingLayout {
public:
  // Reserves `count` elements of T; returns the array's offset.
  template <class T>
  std::size_t Add(std::size_t count) noexcept {
    std::size_t const offset = m_bytes;
    m_bytes += (count * sizeof(T) + 63) / 64 * 64;
    return offset;
  }
  std::size_t Bytes() const noexcept { return m_bytes; }  // the block's size so far

  // The array at `offset` in `block`.
  template <class T>
  static T* At(std::byte* block, std::size_t offset) noexcept {
    return reinterpret_cast<T*>(block + offset);  // NOLINT(cppcoreguidelines-pro-type-reinterpret-cast): raw storage
  }

private:
  std::size_t m_bytes = 0;
};

}  // namespace docshard::detail
