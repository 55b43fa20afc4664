#include <docshard/cosmos/session_token.hpp>

#include <algorithm>
#include <charconv>

namespace docshard::cosmos {

namespace {

template <typename Int>
bool ParseInt(std::string_view text, Int& out) {
  if (text.empty()) return false;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), out);
  return ec == std::errc{} && end == text.data() + text.size();
}

}  // namespace

std::optional<SessionToken> SessionToken::Parse(std::string_view text) {
  SessionToken t;
  auto const hash = text.find('#');
  if (hash == std::string_view::npos) {
    // Simple: the LSN alone.
    if (!ParseInt(text, t.m_globalLsn) || t.m_globalLsn < 0) return std::nullopt;
    t.m_text = std::string(text);
    return t;
  }
  t.m_vector = true;
  if (!ParseInt(text.substr(0, hash), t.m_version)) return std::nullopt;
  auto rest = text.substr(hash + 1);
  auto next = rest.find('#');
  if (!ParseInt(rest.substr(0, next), t.m_globalLsn) || t.m_globalLsn < 0) return std::nullopt;
  while (next != std::string_view::npos) {
    rest = rest.substr(next + 1);
    next = rest.find('#');
    auto const segment = rest.substr(0, next);
    auto const eq = segment.find('=');
    if (eq == std::string_view::npos) return std::nullopt;
    std::uint32_t region = 0;
    std::int64_t lsn = 0;
    if (!ParseInt(segment.substr(0, eq), region) || !ParseInt(segment.substr(eq + 1), lsn) || lsn < 0)
      return std::nullopt;
    for (auto const& [r, l] : t.m_regions)
      if (r == region) return std::nullopt;
    t.m_regions.emplace_back(region, lsn);
  }
  t.m_text = std::string(text);
  return t;
}

void SessionToken::Format() {
  if (!m_vector) {
    m_text = std::to_string(m_globalLsn);
    return;
  }
  m_text = std::to_string(m_version) + "#" + std::to_string(m_globalLsn);
  for (auto const& [region, lsn] : m_regions) m_text += "#" + std::to_string(region) + "=" + std::to_string(lsn);
}

bool SessionToken::operator==(SessionToken const& other) const noexcept {
  if (m_vector != other.m_vector || m_version != other.m_version || m_globalLsn != other.m_globalLsn ||
      m_regions.size() != other.m_regions.size())
    return false;
  // Plain pair loops, not structured bindings: clang 14 cannot capture a
  // binding in a lambda.
  for (auto const& entry : m_regions) {
    auto const& region = entry.first;
    auto const& lsn = entry.second;
    auto it =
        std::find_if(other.m_regions.begin(), other.m_regions.end(), [&](auto const& e) { return e.first == region; });
    if (it == other.m_regions.end() || it->second != lsn) return false;
  }
  return true;
}

SessionToken SessionToken::Merge(SessionToken const& other) const {
  if (m_vector != other.m_vector) {
    // Mixed formats do not happen within one range on one service; keep the
    // one that has seen more.
    if (other.m_globalLsn > m_globalLsn || (other.m_globalLsn == m_globalLsn && other.m_vector)) return other;
    return *this;
  }
  if (!m_vector) return other.m_globalLsn > m_globalLsn ? other : *this;

  // Vector clock: the higher version's regions win; a region both know takes
  // the higher local LSN. Regions only a lower version knew are dropped (the
  // partition's replica set changed).
  SessionToken const& higher = m_version < other.m_version ? other : *this;
  SessionToken const& lower = m_version < other.m_version ? *this : other;
  SessionToken merged;
  merged.m_vector = true;
  merged.m_version = higher.m_version;
  merged.m_globalLsn = std::max(m_globalLsn, other.m_globalLsn);
  for (auto const& entry : higher.m_regions) {
    auto const& region = entry.first;
    auto const& lsn = entry.second;
    auto it =
        std::find_if(lower.m_regions.begin(), lower.m_regions.end(), [&](auto const& e) { return e.first == region; });
    merged.m_regions.emplace_back(region, it == lower.m_regions.end() ? lsn : std::max(lsn, it->second));
  }
  if (m_version == other.m_version) {
    // Same version, regions the higher one lacks: the SDKs call this an
    // inconsistency and throw; keep them rather than fail a response.
    for (auto const& entry : lower.m_regions) {
      auto const& region = entry.first;
      auto const& lsn = entry.second;
      auto it = std::find_if(merged.m_regions.begin(), merged.m_regions.end(),
                             [&](auto const& e) { return e.first == region; });
      if (it == merged.m_regions.end()) merged.m_regions.emplace_back(region, lsn);
    }
  }
  if (merged == *this) return *this;
  if (merged == other) return other;
  merged.Format();
  return merged;
}

}  // namespace docshard::cosmos
