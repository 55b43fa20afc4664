#pragma once
// The session token of one partition key range, in either format the
// service uses:
//   simple  `<lsn>`                                     e.g. "15"
//   vector  `<version>#<globalLsn>[#<region>=<lsn>]...`  e.g. "-1#15", "2#130#1=40#3=90"
// (The header x-ms-session-token holds `<rangeId>:<token>` entries joined by
// ','; SessionContainer handles those.) Merging keeps the newer progress, by
// the official SDKs' vector-clock rules. Pure value type.
#include "docshard/export.hpp"
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace docshard::cosmos {

// One range's parsed session token (see the notes at the top of this file).
// Only Parse and Merge make one.
class DOCSHARD_API SessionToken {
public:
  // nullopt when `text` is in neither format (no throw: tokens come from the network).
  static std::optional<SessionToken> Parse(std::string_view text);

  // The newer of the two, component-wise (vector rules): the higher version's
  // regions, each with the higher local LSN of either token; the higher
  // global LSN and version. Where the official SDKs reject two tokens of the
  // same version with different regions, this keeps the union (a response
  // never fails over a token). A simple and a vector token: the one with the
  // higher global LSN.
  SessionToken Merge(SessionToken const& other) const;

  // True for the vector format, false for a simple `<lsn>`.
  bool IsVector() const noexcept { return m_vector; }
  // The vector token's version (0 for a simple token).
  std::int64_t Version() const noexcept { return m_version; }
  // The global LSN (a simple token's only number); >= 0.
  std::int64_t GlobalLsn() const noexcept { return m_globalLsn; }
  // A vector token's (region id, local LSN) pairs, each region once, in the
  // order received; empty for a simple token.
  std::vector<std::pair<std::uint32_t, std::int64_t>> const& RegionLsns() const noexcept { return m_regions; }
  // The text form; the original text when parsed and not changed by a merge.
  std::string const& ToString() const noexcept { return m_text; }

  // The same format, version, global LSN and region LSNs (in any order).
  bool operator==(SessionToken const& other) const noexcept;

private:
  SessionToken() = default;
  void Format();

  bool m_vector = false;
  std::int64_t m_version = 0;
  std::int64_t m_globalLsn = 0;
  std::vector<std::pair<std::uint32_t, std::int64_t>> m_regions;  // in the order received
  std::string m_text;
};

}  // namespace docshard::cosmos
