#include "docshard/migration/migration_lease.hpp"

#include "docshard/core/errors.hpp"
#include "docshard/rapidjson_interop.hpp"

#include <openssl/evp.h>
#include <rapidjson/document.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <algorithm>
#include <set>

namespace docshard::migration {

namespace {

std::string Sha256Hex(std::string const& text) {
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int length = 0;
  if (EVP_Digest(text.data(), text.size(), digest, &length, EVP_sha256(), nullptr) != 1)
    throw Error(ErrorCode::Internal, "SHA-256 failed");
  static constexpr char Hex[] = "0123456789abcdef";
  std::string out;
  for (unsigned i = 0; i < length; ++i) {
    out += Hex[digest[i] >> 4];
    out += Hex[digest[i] & 15];
  }
  return out;
}

// The object a FromJson reads: a view may hold any JSON, and RapidJSON's
// member lookups need an object.
rapidjson::Value const& Object(JsonView json) {
  auto const& document = JsonInterop::Value(json);
  if (!document.IsObject()) throw ConfigError("lease document", "expected a JSON object");
  return document;
}

std::string Place(rapidjson::Value const& document) {
  auto const id = document.FindMember("id");
  std::string name = id != document.MemberEnd() && id->value.IsString() ? id->value.GetString() : "?";
  return "lease document \"" + name + "\"";
}

std::string Text(rapidjson::Value const& document, char const* name, bool required = true) {
  auto const it = document.FindMember(name);
  if (it == document.MemberEnd() && !required) return {};
  if (it == document.MemberEnd() || !it->value.IsString())
    throw ConfigError(Place(document) + "." + name, "expected a string");
  return {it->value.GetString(), it->value.GetStringLength()};
}

std::uint64_t Count(rapidjson::Value const& document, char const* name) {
  auto const it = document.FindMember(name);
  if (it == document.MemberEnd()) return 0;
  if (!it->value.IsUint64()) throw ConfigError(Place(document) + "." + name, "expected a non-negative integer");
  return it->value.GetUint64();
}

std::int64_t ServerTime(rapidjson::Value const& document) {
  auto const it = document.FindMember("_ts");
  return it != document.MemberEnd() && it->value.IsInt64() ? it->value.GetInt64() : 0;
}

using Writer = rapidjson::Writer<rapidjson::StringBuffer>;

void Put(Writer& w, char const* key, std::string const& value) {
  w.Key(key);
  w.String(value.c_str(), static_cast<rapidjson::SizeType>(value.size()));
}

void Put(Writer& w, char const* key, std::uint64_t value) {
  w.Key(key);
  w.Uint64(value);
}

}  // namespace

std::string_view ToString(LeaseItemState state) {
  switch (state) {
  case LeaseItemState::Free: return "free";
  case LeaseItemState::Leased: return "leased";
  case LeaseItemState::Done: return "done";
  case LeaseItemState::Split: return "split";
  }
  return "?";
}

MigrationLeaseItem MigrationLeaseItem::ForStream(std::string source, cosmos::RangeStream stream) {
  MigrationLeaseItem item;
  // The range id is part of the name: after a merge a child stream keeps
  // its parent's span on another range, and must be another item.
  item.Id = "item-" + Sha256Hex(source + "\n" + stream.RangeId + "\n" + stream.Min + "\n" + stream.Max).substr(0, 32);
  item.Source = std::move(source);
  item.Stream = std::move(stream);
  item.State = item.Stream.Done ? LeaseItemState::Done : LeaseItemState::Free;
  return item;
}

MigrationLeaseItem MigrationLeaseItem::FromJson(JsonView document) {
  auto const& object = Object(document);
  MigrationLeaseItem item;
  item.Id = Text(object, "id");
  item.Source = Text(object, "source");
  item.Stream.RangeId = Text(object, "range");
  item.Stream.Min = Text(object, "min");
  item.Stream.Max = Text(object, "max");
  item.Stream.RangeMin = Text(object, "rangeMin");
  item.Stream.RangeMax = Text(object, "rangeMax");
  item.Stream.Continuation = Text(object, "continuation");
  auto const state = Text(object, "state");
  if (state == "free")
    item.State = LeaseItemState::Free;
  else if (state == "leased")
    item.State = LeaseItemState::Leased;
  else if (state == "done")
    item.State = LeaseItemState::Done;
  else if (state == "split")
    item.State = LeaseItemState::Split;
  else
    throw ConfigError(Place(object) + ".state", "expected free, leased, done or split");
  item.Stream.Done = item.State == LeaseItemState::Done;
  item.Owner = Text(object, "owner");
  item.Renewals = Count(object, "renewals");
  item.Scanned = Count(object, "scanned");
  item.Moved = Count(object, "moved");
  item.Skipped = Count(object, "skipped");
  item.KeptNewer = Count(object, "keptNewer");
  item.Recopied = Count(object, "recopied");
  item.Unresurrected = Count(object, "unresurrected");
  item.LeftInPlace = Count(object, "leftInPlace");
  auto const charge = object.FindMember("requestCharge");
  if (charge != object.MemberEnd()) {
    if (!charge->value.IsNumber() || charge->value.GetDouble() < 0)
      throw ConfigError(Place(object) + ".requestCharge", "expected a non-negative number");
    item.RequestCharge = charge->value.GetDouble();
  }
  item.Parent = Text(object, "parent", false);
  item.ETag = Text(object, "_etag", false);
  item.Timestamp = ServerTime(object);
  return item;
}

std::string MigrationLeaseItem::ToJson() const {
  rapidjson::StringBuffer buffer;
  Writer w(buffer);
  w.StartObject();
  Put(w, "id", Id);
  Put(w, "job", std::string(MigrationLeasePartition));
  Put(w, "kind", std::string("item"));
  Put(w, "source", Source);
  Put(w, "range", Stream.RangeId);
  Put(w, "min", Stream.Min);
  Put(w, "max", Stream.Max);
  Put(w, "rangeMin", Stream.RangeMin);
  Put(w, "rangeMax", Stream.RangeMax);
  Put(w, "continuation", Stream.Continuation);
  Put(w, "state", std::string(ToString(State)));
  Put(w, "owner", Owner);
  Put(w, "renewals", Renewals);
  Put(w, "scanned", Scanned);
  Put(w, "moved", Moved);
  Put(w, "skipped", Skipped);
  Put(w, "keptNewer", KeptNewer);
  Put(w, "recopied", Recopied);
  Put(w, "unresurrected", Unresurrected);
  Put(w, "leftInPlace", LeftInPlace);
  w.Key("requestCharge");
  w.Double(RequestCharge);
  Put(w, "parent", Parent);
  w.EndObject();
  return {buffer.GetString(), buffer.GetSize()};
}

MigrationJobDocument MigrationJobDocument::FromJson(JsonView document) {
  auto const& object = Object(document);
  auto const version = object.FindMember("docshardMigrationJob");
  if (version == object.MemberEnd() || !version->value.IsInt() || version->value.GetInt() != FormatVersion)
    throw ConfigError(Place(object) + ".docshardMigrationJob",
                      "not a docshard migration job of version " + std::to_string(FormatVersion));
  MigrationJobDocument job;
  job.FromHash = Text(object, "from");
  job.ToHash = Text(object, "to");
  auto const sources = object.FindMember("sources");
  if (sources == object.MemberEnd() || !sources->value.IsArray())
    throw ConfigError(Place(object) + ".sources", "expected an array");
  for (auto const& s : sources->value.GetArray()) {
    if (!s.IsString()) throw ConfigError(Place(object) + ".sources", "expected strings");
    job.Sources.emplace_back(s.GetString(), s.GetStringLength());
  }
  auto const ready = object.FindMember("ready");
  job.Ready = ready != object.MemberEnd() && ready->value.IsBool() && ready->value.GetBool();
  job.Creator = Text(object, "creator", false);
  if (object.HasMember("read")) {
    job.Read = Text(object, "read");
    if (job.Read != "scan" && job.Read != "arcs")
      throw ConfigError(Place(object) + ".read", "expected \"scan\" or \"arcs\", got \"" + job.Read + "\"");
  }
  job.ETag = Text(object, "_etag", false);
  job.Timestamp = ServerTime(object);
  return job;
}

std::string MigrationJobDocument::ToJson() const {
  rapidjson::StringBuffer buffer;
  Writer w(buffer);
  w.StartObject();
  Put(w, "id", std::string("job"));
  Put(w, "job", std::string(MigrationLeasePartition));
  Put(w, "kind", std::string("job"));
  w.Key("docshardMigrationJob");
  w.Int(FormatVersion);
  Put(w, "from", FromHash);
  Put(w, "to", ToHash);
  w.Key("sources");
  w.StartArray();
  for (auto const& s : Sources) w.String(s.c_str(), static_cast<rapidjson::SizeType>(s.size()));
  w.EndArray();
  w.Key("ready");
  w.Bool(Ready);
  Put(w, "creator", Creator);
  Put(w, "read", Read);
  w.EndObject();
  return {buffer.GetString(), buffer.GetSize()};
}

std::size_t MigrationJobStatus::Remaining() const {
  return static_cast<std::size_t>(std::count_if(Items.begin(), Items.end(), [](auto const& i) {
    return i.State == LeaseItemState::Free || i.State == LeaseItemState::Leased;
  }));
}

std::vector<std::string> MigrationJobStatus::Workers() const {
  std::set<std::string> owners;
  for (auto const& i : Items)
    if (i.State == LeaseItemState::Leased && !i.Owner.empty()) owners.insert(i.Owner);
  return {owners.begin(), owners.end()};
}

MigrationLeaseItem MigrationJobStatus::Totals() const {
  MigrationLeaseItem t;
  for (auto const& i : Items) {
    t.Scanned += i.Scanned;
    t.Moved += i.Moved;
    t.Skipped += i.Skipped;
    t.KeptNewer += i.KeptNewer;
    t.Recopied += i.Recopied;
    t.Unresurrected += i.Unresurrected;
    t.LeftInPlace += i.LeftInPlace;
    t.RequestCharge += i.RequestCharge;
    t.Timestamp = std::max(t.Timestamp, i.Timestamp);
  }
  return t;
}

MigrationJobStatus ReadMigrationJob(cosmos::CosmosClient& client, std::string_view leaseCollection) {
  MigrationJobStatus status;
  cosmos::QueryOptions options;
  options.PartitionKey = cosmos::PartitionKeyValue(MigrationLeasePartition);
  std::string continuation;
  do {
    auto page = client.ReadFeedPage(leaseCollection, continuation, options);
    for (auto const& d : JsonInterop::Value(page.Documents()).GetArray()) {
      if (!d.IsObject()) continue;
      auto const kind = d.FindMember("kind");
      if (kind == d.MemberEnd() || !kind->value.IsString()) continue;
      std::string_view const k(kind->value.GetString(), kind->value.GetStringLength());
      if (k == "job") {
        status.Job = MigrationJobDocument::FromJson(d);
        status.Exists = true;
      } else if (k == "item") {
        status.Items.push_back(MigrationLeaseItem::FromJson(d));
      }
    }
    continuation = page.Continuation();
  } while (!continuation.empty());
  std::sort(status.Items.begin(), status.Items.end(), [](auto const& a, auto const& b) {
    return std::tie(a.Source, a.Stream.Min, a.Stream.Max, a.Id) < std::tie(b.Source, b.Stream.Min, b.Stream.Max, b.Id);
  });
  return status;
}

}  // namespace docshard::migration
