#include "core/full_precision_json.hpp"

#include <charconv>
#include <cstdint>
#include <limits>
#include <system_error>

namespace docshard::detail {

namespace {

// Far past any exponent that decides between 0 and infinity; keeps sums small.
constexpr std::int64_t ExponentCap = 1'000'000'000;

// For a decimal outside the double range (from_chars' result_out_of_range):
// whether it is too large rather than too small. Its first significant digit
// stands at 10^(lead - 1) * 10^exponent; out of range means either >= 1e308
// or < 1e-323, so the sign of lead + exponent decides.
bool TooLarge(std::string_view unsignedToken) noexcept {
  auto const e = unsignedToken.find_first_of("eE");
  std::string_view const mantissa = unsignedToken.substr(0, e);
  std::int64_t exponent = 0;
  if (e != std::string_view::npos) {
    std::size_t i = e + 1;
    bool const negative = i < unsignedToken.size() && unsignedToken[i] == '-';
    if (i < unsignedToken.size() && (unsignedToken[i] == '-' || unsignedToken[i] == '+')) ++i;
    for (; i < unsignedToken.size(); ++i)
      if (exponent < ExponentCap) exponent = exponent * 10 + (unsignedToken[i] - '0');
    if (negative) exponent = -exponent;
  }
  auto const point = mantissa.find('.');
  auto const integerDigits = static_cast<std::int64_t>(point == std::string_view::npos ? mantissa.size() : point);
  auto const first = mantissa.find_first_of("123456789");
  if (first == std::string_view::npos) return false;  // zero: never out of range, but never too large either
  auto const position = static_cast<std::int64_t>(first);
  std::int64_t const lead = position < integerDigits ? integerDigits - position : integerDigits - position + 1;
  return lead + exponent > 0;
}

}  // namespace

JsonNumber ReadJsonNumber(std::string_view token) noexcept {
  JsonNumber n;
  bool const negative = !token.empty() && token.front() == '-';
  std::string_view const unsignedToken = token.substr(negative ? 1 : 0);

  // Integers keep RapidJSON's types: Uint up to 2^32 - 1, Int down to -2^31,
  // then Uint64 / Int64, then double.
  if (unsignedToken.find_first_of(".eE") == std::string_view::npos) {
    std::uint64_t magnitude = 0;
    auto const [end, ec] =
        std::from_chars(unsignedToken.data(), unsignedToken.data() + unsignedToken.size(), magnitude);
    if (ec == std::errc() && end == unsignedToken.data() + unsignedToken.size()) {
      constexpr std::uint64_t Int32Limit = std::uint64_t{1} << 31;
      constexpr std::uint64_t Int64Limit = std::uint64_t{1} << 63;
      if (!negative) {
        n.Type =
            magnitude <= std::numeric_limits<std::uint32_t>::max() ? JsonNumber::Kind::Uint : JsonNumber::Kind::Uint64;
        n.Unsigned = magnitude;
        return n;
      }
      if (magnitude <= Int64Limit) {
        n.Type = magnitude <= Int32Limit ? JsonNumber::Kind::Int : JsonNumber::Kind::Int64;
        // Two's complement by C++20; covers -2^63, whose magnitude has no int64.
        n.Signed = static_cast<std::int64_t>(std::uint64_t{0} - magnitude);
        return n;
      }
    }
  }

  n.Type = JsonNumber::Kind::Double;
  auto const parsed = std::from_chars(token.data(), token.data() + token.size(), n.Real);
  if (parsed.ec == std::errc::result_out_of_range) {
    double const magnitude = TooLarge(unsignedToken) ? std::numeric_limits<double>::infinity() : 0.0;
    n.Real = negative ? -magnitude : magnitude;
  }
  return n;
}

}  // namespace docshard::detail
