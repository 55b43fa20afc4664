#pragma once
// Whether this test binary is built with AddressSanitizer. ASan's shadow
// memory and its quarantine of freed memory (256 MiB by default) put RSS far
// past any bound a test could set, and say nothing about what the code keeps,
// so memory bounds are checked in normal builds only. g++ defines
// __SANITIZE_ADDRESS__; clang 14 only answers __has_feature(address_sanitizer).
namespace docshard::test {

#if defined(__SANITIZE_ADDRESS__)
inline constexpr bool RssIsMeaningful = false;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
inline constexpr bool RssIsMeaningful = false;
#else
inline constexpr bool RssIsMeaningful = true;
#endif
#else
inline constexpr bool RssIsMeaningful = true;
#endif

}  // namespace docshard::test
