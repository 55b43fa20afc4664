#include <docshard/cosmos/session_container.hpp>

#include <algorithm>

namespace docshard::cosmos {

namespace {

std::string_view TrimSlashes(std::string_view s) {
  while (!s.empty() && s.front() == '/') s.remove_prefix(1);
  while (!s.empty() && s.back() == '/') s.remove_suffix(1);
  return s;
}

// "<rangeId>:<token>" entries; malformed ones are skipped (a token from the
// network never fails the response that carried it).
std::vector<std::pair<std::string, SessionToken>> ParseCompound(std::string_view header) {
  std::vector<std::pair<std::string, SessionToken>> out;
  while (!header.empty()) {
    auto const comma = header.find(',');
    auto entry = header.substr(0, comma);
    header = comma == std::string_view::npos ? std::string_view() : header.substr(comma + 1);
    while (!entry.empty() && entry.front() == ' ') entry.remove_prefix(1);
    auto const colon = entry.find(':');
    if (colon == std::string_view::npos || colon == 0 || entry.find(':', colon + 1) != std::string_view::npos) continue;
    // The range id goes back into x-ms-session-token verbatim: visible ASCII
    // only (range ids are decimal), so a caller's Update cannot put a line
    // break or control character into a request header.
    if (!std::all_of(entry.begin(), entry.begin() + static_cast<std::ptrdiff_t>(colon),
                     [](char c) { return c > 0x20 && c < 0x7f; }))
      continue;
    auto token = SessionToken::Parse(entry.substr(colon + 1));
    if (token) out.emplace_back(std::string(entry.substr(0, colon)), std::move(*token));
  }
  return out;
}

}  // namespace

void SessionContainer::Update(std::string_view collectionLink, std::string_view headerValue,
                              std::string_view ownerResourceId) {
  if (headerValue.empty()) return;
  auto const link = TrimSlashes(collectionLink);
  // Most answers to reads repeat, as one "<rangeId>:<token>", the token this
  // client holds for that range already (nobody wrote to it since): then
  // merging would change nothing, and nothing is parsed.
  if (auto const colon = headerValue.find(':');
      colon != std::string_view::npos && headerValue.find(',') == std::string_view::npos) {
    std::lock_guard lock(m_mutex);
    auto const known = m_collections.find(link);
    if (known != m_collections.end() && (ownerResourceId.empty() || known->second.ResourceId == ownerResourceId)) {
      auto const range = known->second.Ranges.find(headerValue.substr(0, colon));
      if (range != known->second.Ranges.end() && range->second.ToString() == headerValue.substr(colon + 1)) return;
    }
  }
  auto entries = ParseCompound(headerValue);  // outside the lock
  if (entries.empty()) return;
  std::lock_guard lock(m_mutex);
  auto found = m_collections.find(link);
  if (found == m_collections.end()) found = m_collections.emplace(std::string(link), Collection{}).first;
  auto& collection = found->second;
  if (!ownerResourceId.empty() && collection.ResourceId != ownerResourceId) {
    // A new resource id under a known name: the collection was recreated and
    // the old LSNs mean nothing (worse, they are ahead of the new ones).
    if (!collection.ResourceId.empty()) collection.Ranges.clear();
    collection.ResourceId = std::string(ownerResourceId);
  }
  for (auto& [range, token] : entries) {
    auto it = collection.Ranges.find(range);
    if (it == collection.Ranges.end())
      collection.Ranges.emplace(std::move(range), std::move(token));
    else
      it->second = it->second.Merge(token);
  }
}

std::string SessionContainer::CollectionToken(std::string_view collectionLink) const {
  std::lock_guard lock(m_mutex);
  auto it = m_collections.find(TrimSlashes(collectionLink));
  if (it == m_collections.end()) return {};
  std::string out;
  for (auto const& [range, token] : it->second.Ranges) {
    if (!out.empty()) out += ',';
    out += range;
    out += ':';
    out += token.ToString();
  }
  return out;
}

std::string SessionContainer::RangeToken(std::string_view collectionLink, std::string_view rangeId,
                                         std::vector<std::string> const& parents) const {
  std::lock_guard lock(m_mutex);
  auto it = m_collections.find(TrimSlashes(collectionLink));
  if (it == m_collections.end()) return {};
  auto const& ranges = it->second.Ranges;
  std::optional<SessionToken> chosen;
  if (auto own = ranges.find(rangeId); own != ranges.end()) {
    chosen = own->second;
  } else {
    // A child after a split (or a merged range): it continues its parents'
    // progress, so their tokens are what this client has seen of its data.
    for (auto const& parent : parents) {
      auto p = ranges.find(parent);
      if (p == ranges.end()) continue;
      chosen = chosen ? chosen->Merge(p->second) : p->second;
    }
  }
  if (!chosen) return {};
  return std::string(rangeId) + ":" + chosen->ToString();
}

std::optional<SessionToken> SessionContainer::Token(std::string_view collectionLink, std::string_view rangeId) const {
  std::lock_guard lock(m_mutex);
  auto it = m_collections.find(TrimSlashes(collectionLink));
  if (it == m_collections.end()) return std::nullopt;
  auto r = it->second.Ranges.find(rangeId);
  if (r == it->second.Ranges.end()) return std::nullopt;
  return r->second;
}

void SessionContainer::Clear(std::string_view collectionLink) {
  std::lock_guard lock(m_mutex);
  if (auto it = m_collections.find(TrimSlashes(collectionLink)); it != m_collections.end()) m_collections.erase(it);
}

void SessionContainer::ClearDatabase(std::string_view databaseId) {
  auto const prefix = "dbs/" + std::string(databaseId) + "/";
  std::lock_guard lock(m_mutex);
  std::erase_if(m_collections, [&](auto const& e) { return e.first.starts_with(prefix); });
}

}  // namespace docshard::cosmos
