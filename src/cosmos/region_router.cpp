#include "cosmos/region_router.hpp"

#include "core/region_name.hpp"

#include <algorithm>

namespace docshard::cosmos::detail {

RegionRouter::RegionRouter(std::string globalEndpoint, std::vector<std::string> const& preferredRegions,
                           std::chrono::milliseconds unavailableFor)
    : m_global(std::move(globalEndpoint)), m_unavailableFor(unavailableFor) {
  for (auto const& name : preferredRegions) m_preferredKeys.push_back(docshard::detail::RegionKey(name));
}

namespace {
bool SameLocations(std::vector<AccountLocation> const& a, std::vector<AccountLocation> const& b) {
  return std::equal(a.begin(), a.end(), b.begin(), b.end(), [](AccountLocation const& x, AccountLocation const& y) {
    return x.Name == y.Name && x.Endpoint == y.Endpoint;
  });
}
}  // namespace

bool RegionRouter::Update(DatabaseAccount account) {
  bool const changed = !m_account || !SameLocations(m_account->Writable, account.Writable) ||
                       !SameLocations(m_account->Readable, account.Readable);
  m_multiRegion = account.Readable.size() > 1 || account.Writable.size() > 1;
  m_readBase.clear();
  for (auto const& key : m_preferredKeys)
    for (auto const& location : account.Readable)
      if (docshard::detail::RegionKey(location.Name) == key) m_readBase.push_back(location);
  for (auto const& location : account.Readable)
    if (std::find(m_preferredKeys.begin(), m_preferredKeys.end(), docshard::detail::RegionKey(location.Name)) ==
        m_preferredKeys.end())
      m_readBase.push_back(location);
  // An account that lists no readable region still serves reads at its
  // write region.
  if (m_readBase.empty()) m_readBase.push_back(account.Writable.front());
  m_account = std::move(account);
  return changed;
}

std::vector<RegionTarget> RegionRouter::ReadOrder(TimePoint now) const {
  if (!m_account) return {{"", m_global}};
  if (!m_multiRegion) return {{m_readBase.front().Name, m_global}};
  std::vector<RegionTarget> order, last;
  for (auto const& location : m_readBase)
    (IsMarked(location.Name, RegionUse::Reads, now) ? last : order).push_back({location.Name, location.Endpoint});
  order.insert(order.end(), last.begin(), last.end());
  return order;
}

RegionTarget RegionRouter::WriteTarget(TimePoint now) const {
  if (!m_account) return {"", m_global};
  if (!m_multiRegion) return {m_account->Writable.front().Name, m_global};
  for (auto const& location : m_account->Writable)
    if (!IsMarked(location.Name, RegionUse::Writes, now)) return {location.Name, location.Endpoint};
  return WriteRegion();
}

RegionTarget RegionRouter::WriteRegion() const {
  if (!m_account) return {"", m_global};
  auto const& first = m_account->Writable.front();
  return {first.Name, m_multiRegion ? first.Endpoint : m_global};
}

bool RegionRouter::MarkUnavailable(std::string_view region, RegionUse use, TimePoint now) {
  auto const key = docshard::detail::RegionKey(region);
  m_probation.erase(key);
  auto& mark = m_marks[key];
  auto& until = use == RegionUse::Reads ? mark.Reads : mark.Writes;
  bool const fresh = !until || *until <= now;
  until = now + m_unavailableFor;
  return fresh;
}

bool RegionRouter::IsMarked(std::string_view region, RegionUse use, TimePoint now) const {
  auto it = m_marks.find(docshard::detail::RegionKey(region));
  if (it == m_marks.end()) return false;
  auto const& until = use == RegionUse::Reads ? it->second.Reads : it->second.Writes;
  return until && *until > now;
}

bool RegionRouter::ExpireMarks(TimePoint now) {
  bool expired = false;
  for (auto it = m_marks.begin(); it != m_marks.end();) {
    auto& mark = it->second;
    for (auto* until : {&mark.Reads, &mark.Writes})
      if (*until && **until <= now) {
        until->reset();
        m_probation.insert(it->first);
        expired = true;
      }
    it = !mark.Reads && !mark.Writes ? m_marks.erase(it) : std::next(it);
  }
  return expired;
}

bool RegionRouter::RecordSuccess(std::string_view region) {
  if (m_probation.empty()) return false;  // the common case: nothing to look up
  return m_probation.erase(docshard::detail::RegionKey(region)) > 0;
}

std::vector<std::string> RegionRouter::AccountEndpoints(TimePoint now) const {
  std::vector<std::string> endpoints{m_global};
  if (!m_multiRegion) return endpoints;
  for (auto const& target : ReadOrder(now))
    if (std::find(endpoints.begin(), endpoints.end(), target.Endpoint) == endpoints.end())
      endpoints.push_back(target.Endpoint);
  return endpoints;
}

}  // namespace docshard::cosmos::detail
