#include "core/ring_memory.hpp"

#include <cstdint>
#include <fstream>
#include <new>
#include <string>

#if defined(__linux__)
#include <sys/mman.h>
#endif

namespace docshard::detail {

namespace {

constexpr std::size_t kHugePage = std::size_t{2} << 20;
constexpr std::size_t kPage = 4096;

// Plain memory, 64-byte aligned (a cache line: the arrays are scanned).
// Freed blocks go back to malloc, which hands them to the next build of a
// similar ring without new page faults.
std::shared_ptr<std::byte> AllocatePlain(std::size_t bytes) {
  auto* block = static_cast<std::byte*>(::operator new (bytes, std::align_val_t{64}));
  return {block, [](std::byte* p) { ::operator delete (p, std::align_val_t{64}); }};
}

#if defined(__linux__) && defined(MADV_HUGEPAGE)
// Whether the kernel gives huge pages to memory advised MADV_HUGEPAGE
// ("[always]" or "[madvise]" selected). Read once: it is a boot-time setting
// in practice, and a wrong guess only costs speed.
bool HugePagesOnAdvice() {
  static bool const on = [] {
    std::ifstream file("/sys/kernel/mm/transparent_hugepage/enabled");
    std::string line;
    std::getline(file, line);
    return line.find("[always]") != std::string::npos || line.find("[madvise]") != std::string::npos;
  }();
  return on;
}
#endif

}  // namespace

std::shared_ptr<std::byte> AllocateRingMemory(std::size_t bytes) {
#if defined(__linux__) && defined(MADV_HUGEPAGE)
  // From one huge page up, and where the kernel honours the advice: a
  // mapping of its own on a 2 MiB boundary, so that every whole 2 MiB of it
  // can be one huge page (the tail past the last boundary gets small pages).
  // Without huge pages a mapping of its own would fault every page on every
  // build, where malloc's reused memory faults none: then plain memory.
  if (bytes >= kHugePage && HugePagesOnAdvice()) {
    std::size_t const length = (bytes + kPage - 1) / kPage * kPage;
    // Over-map by one huge page, keep the aligned part, give the rest back:
    // mmap itself only promises 4 KiB alignment.
    void* const mapped =
        ::mmap(nullptr, length + kHugePage, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (mapped == MAP_FAILED) throw std::bad_alloc();
    auto const start = reinterpret_cast<std::uintptr_t>(mapped);  // NOLINT(cppcoreguidelines-pro-type-reinterpret-cast)
    std::uintptr_t const aligned = (start + kHugePage - 1) / kHugePage * kHugePage;
    if (aligned > start) ::munmap(mapped, aligned - start);
    std::size_t const tail = start + length + kHugePage - (aligned + length);
    if (tail > 0) ::munmap(reinterpret_cast<void*>(aligned + length), tail);  // NOLINT(performance-no-int-to-ptr)
    auto* block = reinterpret_cast<std::byte*>(aligned);                      // NOLINT(performance-no-int-to-ptr)
    // Advice only: should it fail, the block is ordinary memory.
    (void)::madvise(block, length, MADV_HUGEPAGE);
    return {block, [length](std::byte* p) { ::munmap(p, length); }};
  }
#endif
  return AllocatePlain(bytes);
}

}  // namespace docshard::detail
