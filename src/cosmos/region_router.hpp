#pragma once
// Which region of a multi-region account a request goes to: pure logic (no
// I/O, no clock of its own, no locking), so that it can be tested without a
// server. CosmosClient holds one under its mutex and feeds it the account
// (`GET /`) and the failures it sees.
//
// Rules:
//   reads   the readable regions in the application's preferred order, then
//           the account's other readable regions in the account's order;
//           regions marked unavailable for reads go last (in the same order),
//           so that with every region marked the preferred one is tried first.
//   writes  the first writable region (the write region) not marked
//           unavailable for writes, else the first writable region.
//   marks   MarkUnavailable(region, use) until now + UnavailableFor; once
//           expired (ExpireMarks) the region is on probation: the next
//           success there is its recovery (RecordSuccess returns true).
//   single  an account with at most one readable and one writable region, or
//           none read yet: every request goes to the configured (global)
//           endpoint, named after the account's region when known.
// Region names compare as the service's SDKs compare them (region_name.hpp).
#include "cosmos/database_account.hpp"

#include <chrono>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace docshard::cosmos::detail {

// Where one attempt goes.
struct RegionTarget {
  std::string Name;      // the region as the account spells it; "" when not known
  std::string Endpoint;  // https://host:port
  friend bool operator==(RegionTarget const&, RegionTarget const&) = default;
};

enum class RegionUse { Reads, Writes };

class RegionRouter {
public:
  using TimePoint = std::chrono::steady_clock::time_point;

  // `globalEndpoint`: the endpoint the client was configured with. Preferred
  // names are expected valid and distinct (CheckPreferredRegions).
  RegionRouter(std::string globalEndpoint, std::vector<std::string> const& preferredRegions,
               std::chrono::milliseconds unavailableFor);

  // Adopts a freshly read account. True when the write region or the
  // readable regions changed (worth a log line).
  bool Update(DatabaseAccount account);
  bool HasAccount() const noexcept { return m_account.has_value(); }
  // More than one region in the account: requests go to the regions' own
  // endpoints; else everything goes to the global endpoint.
  bool MultiRegion() const noexcept { return m_multiRegion; }
  // The account takes writes in more than one region (multi-region writes:
  // enableMultipleWriteLocations): a 503'd create, replace or delete may go
  // to another one, as the service's SDKs do. Not a single-write account
  // that still lists its old write region after a failover.
  bool MultiWrite() const noexcept {
    return m_account && m_account->MultipleWriteLocations && m_account->Writable.size() > 1;
  }

  // Regions for a read, best first (never empty).
  std::vector<RegionTarget> ReadOrder(TimePoint now) const;
  // The region for a write.
  RegionTarget WriteTarget(TimePoint now) const;
  // The write region as the account lists it, marks ignored (for a read
  // that must see every write: the session fallback).
  RegionTarget WriteRegion() const;

  // Marks `region` unavailable for `use` until now + UnavailableFor. True
  // when it was not marked for that use before (the first failure: log it).
  bool MarkUnavailable(std::string_view region, RegionUse use, TimePoint now);
  bool IsMarked(std::string_view region, RegionUse use, TimePoint now) const;
  // Ends the marks expired at `now`; true when there was one (the client
  // re-reads the account). Their regions are on probation.
  bool ExpireMarks(TimePoint now);
  // A successful attempt in `region`: true when it was on probation (it has
  // recovered: log it), and it is no longer.
  bool RecordSuccess(std::string_view region);

  // Where to read the account from: the global endpoint, then the readable
  // regions' endpoints in read order (the global endpoint closes while the
  // write region refuses connections).
  std::vector<std::string> AccountEndpoints(TimePoint now) const;

  std::chrono::milliseconds UnavailableFor() const noexcept { return m_unavailableFor; }

private:
  struct Mark {
    std::optional<TimePoint> Reads, Writes;  // unavailable until
  };

  std::string m_global;
  std::vector<std::string> m_preferredKeys;
  std::chrono::milliseconds m_unavailableFor;
  std::optional<DatabaseAccount> m_account;
  bool m_multiRegion = false;
  std::vector<AccountLocation> m_readBase;  // preferred first, then the rest
  std::map<std::string, Mark> m_marks;      // by RegionKey
  std::set<std::string> m_probation;        // RegionKeys
};

}  // namespace docshard::cosmos::detail
