#include "docshard/client/partitioned_client.hpp"

#include "core/document_id.hpp"
#include "core/duplicate_member.hpp"
#include "core/full_precision_json.hpp"
#include "core/json_depth.hpp"
#include "core/ring_position_store.hpp"
#include "core/synthetic_key_store.hpp"
#include "fan_out_executor.hpp"
#include "provisional.hpp"
#include "query_plan_cache.hpp"
#include "routed_diagnostics.hpp"
#include "tombstone.hpp"
#include "transition_delete.hpp"
#include "transition_replace.hpp"

#include "docshard/core/errors.hpp"
#include "docshard/rapidjson_interop.hpp"
#include "docshard/resolvers/transition_partition_resolver.hpp"

#include <rapidjson/error/en.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <algorithm>
#include <cstdlib>
#include <exception>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

namespace docshard::client {

namespace {
std::string ReadAccountKey(std::string const& name, resolvers::AccountConfig const& account) {
  std::string key;
  if (!account.KeyEnv.empty()) {
    char const* value = std::getenv(account.KeyEnv.c_str());
    if (!value || !*value)
      throw InvalidArgumentError("account \"" + name + "\": environment variable " + account.KeyEnv + " is not set");
    key = value;
  } else {
    std::error_code ec;
    if (std::filesystem::is_directory(account.KeyFile, ec))
      throw InvalidArgumentError("account \"" + name + "\": key file " + account.KeyFile + " is a directory");
    std::ifstream in(account.KeyFile, std::ios::binary);
    if (!in) throw InvalidArgumentError("account \"" + name + "\": cannot read key file " + account.KeyFile);
    std::ostringstream text;
    text << in.rdbuf();
    key = text.str();
  }
  while (!key.empty() && std::isspace(static_cast<unsigned char>(key.back()))) key.pop_back();
  while (!key.empty() && std::isspace(static_cast<unsigned char>(key.front()))) key.erase(key.begin());
  if (key.empty()) throw InvalidArgumentError("account \"" + name + "\": the key is empty");
  return key;
}

// The server-side partition-key path of the collections a resolver names:
// its key path, the first path of a composite key, or a synthetic key's store.
std::string ServerKeyPath(IPartitionResolver const& resolver) { return resolver.KeyPath()->ServerPath(); }

std::string Serialize(rapidjson::Document const& doc) {
  rapidjson::StringBuffer buffer;
  rapidjson::Writer<rapidjson::StringBuffer> writer(buffer);
  doc.Accept(writer);
  return std::string(buffer.GetString(), buffer.GetSize());
}

// RapidJSON skips a UTF-8 byte order mark, the service answers 500 to one:
// the text sent must not start with one either.
void DropByteOrderMark(std::string& json) {
  if (json.rfind("\xEF\xBB\xBF", 0) == 0) json.erase(0, 3);
}

rapidjson::Document ParseDocument(std::string const& json) {
  // The document is parsed, then serialised again (recursively): bound its depth.
  if (docshard::detail::JsonDepthExceeds(json))
    throw InvalidArgumentError("document nests deeper than " + std::to_string(docshard::detail::MaxJsonDepth) +
                               " levels");
  // Numbers exactly: RapidJSON's default parser reads about one random
  // double in five an ulp off (-97570.19231092371), and a number key read off
  // by an ulp hashes as different text and disagrees with the document's own
  // value on the server (partition key header vs body).
  rapidjson::Document doc;
  auto const parsed = docshard::detail::ParseFullPrecision<rapidjson::kParseValidateEncodingFlag>(doc, json);
  if (parsed.IsError())
    throw InvalidArgumentError(std::string("document is not valid JSON: ") +
                               rapidjson::GetParseError_En(parsed.Code()) + " at offset " +
                               std::to_string(parsed.Offset()));
  if (!doc.IsObject()) throw InvalidArgumentError("document must be a JSON object");
  // A repeated name would be routed on one value and stored with another.
  if (auto d = docshard::detail::FindDuplicateMember(doc))
    throw InvalidArgumentError("document has the member " + docshard::detail::QuotedId(d->Name) + " more than once" +
                               (d->Place.empty() ? std::string() : " in " + docshard::detail::QuotedId(d->Place)) +
                               "; JSON readers disagree on which one counts: keep one");
  auto id = doc.FindMember("id");
  if (id == doc.MemberEnd() || !id->value.IsString()) throw InvalidArgumentError("document has no string \"id\"");
  std::string_view const idText(id->value.GetString(), id->value.GetStringLength());
  if (auto problem = docshard::detail::DocumentIdProblem(idText); !problem.empty())
    throw InvalidArgumentError("document id " + docshard::detail::QuotedId(idText) + " " + problem);
  return doc;
}

// The resolver whose ring a written document's position is stored for: a
// transition's next (creates and replaces land there), else the resolver.
IPartitionResolver const& Placing(IPartitionResolver const& resolver) {
  auto const* transition = resolver.Transition();
  return transition ? *transition->Next : resolver;
}

// Gives the response or error of a call to one collection the routing
// decision (the collection was passed to diagnostics.Tried before).
template <typename Call>
RoutedResponse WithRouting(detail::RoutedDiagnostics& diagnostics, Call const& call) {
  try {
    RoutedResponse routed = call();
    diagnostics.Add(routed.Response.Diagnostics());
    diagnostics.PublishOn(routed.Response);
    return routed;
  } catch (Error& e) {
    diagnostics.Add(e.Diagnostics());
    diagnostics.PublishOn(e);
    throw;
  }
}

// A create while a scheme is in transition (it lands in next's `target`).
// A 409 there can be a provisional copy a killed migrator left of a
// document the application deleted (its tombstone exists): that copy is not
// the document, so it is deleted (If-Match its etag) and the create made
// again, a create of a new document (201). A provisional copy without a
// tombstone is a move in flight of a document that exists: the 409 stands.
// So it does when current still holds the id (`currentHolds`): a delete that
// wrote its tombstone and failed before deleting current's copy left the
// document there, and a create must not answer 201 beside it.
template <typename CurrentHolds>
cosmos::CosmosResponse CreateInTransition(cosmos::CosmosClient& client, CollectionRef const& target,
                                          std::string_view id, std::string const& documentJson,
                                          cosmos::PartitionKeyValue const& header,
                                          cosmos::RequestOptions const& options, CurrentHolds const& currentHolds) {
  for (int round = 0;; ++round) {
    try {
      return client.CreateDocument(target.Link(), documentJson, header, options);
    } catch (cosmos::ConflictError const&) {
      auto const conflict = std::current_exception();
      if (round >= 4) throw;
      cosmos::CosmosResponse existing;
      try {
        cosmos::RequestOptions plain;
        plain.Timeout = options.Timeout;
        existing = client.ReadDocument(target.Link(), id, header, plain);
      } catch (cosmos::NotFoundError const&) {
        continue;  // gone meanwhile: create again
      }
      if (!detail::IsProvisionalBody(existing.Body())) std::rethrow_exception(conflict);
      if (!detail::TombstoneExists(client, target, id, header, options.Timeout))
        std::rethrow_exception(conflict);                    // the document exists (its move is in flight)
      if (currentHolds()) std::rethrow_exception(conflict);  // the document exists (its delete failed)
      cosmos::RequestOptions ifMatch;
      ifMatch.IfMatchETag = existing.ETag();
      ifMatch.Timeout = options.Timeout;
      try {
        client.DeleteDocument(target.Link(), id, header, ifMatch);
      } catch (cosmos::PreconditionFailedError const&) {
      } catch (cosmos::NotFoundError const&) {}  // written or removed meanwhile: look again
    }
  }
}

}  // namespace

std::shared_ptr<PartitionedClient> PartitionedClient::FromScheme(resolvers::PartitionScheme const& scheme,
                                                                 PartitionedClientOptions const& options) {
  if (scheme.Accounts().empty())
    throw InvalidArgumentError("the scheme has no \"accounts\": cannot connect to a backend");
  std::map<std::string, std::shared_ptr<cosmos::CosmosClient>> accounts;
  for (auto const& [name, account] : scheme.Accounts()) {
    cosmos::CosmosClientOptions o = options.Client;
    o.Endpoint = account.Endpoint;
    o.Key = ReadAccountKey(name, account);
    o.CaFile = account.CaFile;
    if (!account.PreferredRegions.empty()) o.PreferredRegions = account.PreferredRegions;
    try {
      accounts.emplace(name, std::make_shared<cosmos::CosmosClient>(std::move(o)));
    } catch (InvalidArgumentError const& e) {  // e.g. a key that is not base64 (never quoted)
      throw InvalidArgumentError("account \"" + name + "\": " + e.what());
    }
  }
  auto client = std::make_shared<PartitionedClient>(std::move(accounts));
  client->SetResolver("", scheme.Resolver(), scheme.Epoch().value_or(0));
  return client;
}

PartitionedClient::PartitionedClient(std::map<std::string, std::shared_ptr<cosmos::CosmosClient>> accounts)
    : m_accounts(std::move(accounts)), m_plans(std::make_shared<detail::QueryPlanCache>()) {
  if (m_accounts.empty()) throw InvalidArgumentError("PartitionedClient needs at least one account");
  for (auto const& [name, client] : m_accounts)
    if (!client) throw InvalidArgumentError("account \"" + name + "\" has no client");
}

void PartitionedClient::SetResolver(std::string const& name, ResolverPtr resolver, std::int64_t epoch) {
  ValidateForPublication(name, resolver);  // src/client/resolver_publication.cpp
  std::lock_guard lock(m_mutex);
  m_resolvers[name] = Published{std::move(resolver), epoch};
}

PartitionedClient::Published PartitionedClient::Snapshot(std::string const& name) const {
  std::lock_guard lock(m_mutex);
  auto it = m_resolvers.find(name);
  if (it == m_resolvers.end())
    throw InvalidArgumentError(name.empty() ? "no default resolver is set" : "unknown resolver \"" + name + "\"");
  return it->second;
}

ResolverPtr PartitionedClient::GetResolver(std::string const& name) const { return Snapshot(name).Resolver; }
std::int64_t PartitionedClient::GetEpoch(std::string const& name) const { return Snapshot(name).Epoch; }

cosmos::CosmosClient& PartitionedClient::Account(std::string const& name) const {
  auto it = m_accounts.find(name);
  if (it == m_accounts.end()) throw InvalidArgumentError("unknown account \"" + name + "\"");
  return *it->second;
}

void PartitionedClient::SetTraceHook(RoutingTraceHook hook) {
  std::lock_guard lock(m_mutex);
  m_traceHook = hook ? std::make_shared<RoutingTraceHook const>(std::move(hook)) : nullptr;
  m_tracing.store(m_traceHook != nullptr, std::memory_order_relaxed);
}

void PartitionedClient::Trace(RoutingTrace const& trace) const {
  std::shared_ptr<RoutingTraceHook const> hook;
  {
    std::lock_guard lock(m_mutex);
    hook = m_traceHook;
  }
  if (hook) (*hook)(trace);
}

cosmos::PartitionKeyValue PartitionedClient::HeaderValue(PartitionKey const& key) {
  auto const& k = key.GetKind() == PartitionKey::Kind::Composite ? key.AsComposite().front() : key;
  // A string key goes straight to the header form: the JSON round trip below
  // cost ~2,600 instructions, a third of what routing added to a point read
  // (callgrind, docs/benchmarks.md "Routed vs direct point reads").
  if (k.GetKind() == PartitionKey::Kind::String) return cosmos::PartitionKeyValue(k.AsString());
  return cosmos::PartitionKeyValue::FromJson(k.ToJson());
}

void PartitionedClient::CreateCollectionsIfMissing(std::string const& resolverName) {
  auto snapshot = Snapshot(resolverName);
  auto path = ServerKeyPath(*snapshot.Resolver);
  std::set<std::pair<std::string, std::string>> databases;
  for (auto const& c : snapshot.Resolver->Collections()) {
    auto& client = Account(c.Account());
    if (databases.emplace(c.Account(), c.Database()).second) client.CreateDatabaseIfNotExists(c.Database());
    client.CreateCollectionIfNotExists(c.Database(), c.Collection(), path);
  }
}

RoutedResponse PartitionedClient::Write(WriteKind kind, std::string documentJson, OperationOptions const& options) {
  auto snapshot = Snapshot(options.Resolver);
  auto const& resolver = *snapshot.Resolver;
  DropByteOrderMark(documentJson);
  auto doc = ParseDocument(documentJson);
  auto const& path = *resolver.KeyPath();
  auto key = path.Extract(doc);  // PartitionKeyError names the path
  // The marker of a migrator's provisional copy is docshard's own: an
  // application write never carries it (docs/migration.md).
  bool rewritten = detail::RemoveProvisional(doc);
  if (path.IsSynthetic()) {
    // The key travels with the document, so the server partitions on it and
    // an update of the document keeps its place.
    StoreSyntheticKey(path, doc, key);
    rewritten = true;
  }
  // The ring position, when the scheme stores it (docs/migration.md).
  rewritten = StoreRingPosition(Placing(resolver), doc) || rewritten;
  if (rewritten) documentJson = Serialize(doc);
  CollectionRef const& target = resolver.ResolveForCreate(doc);
  auto route = resolver.ExplainRoute(key);
  if (m_tracing.load(std::memory_order_relaxed))
    Trace({kind == WriteKind::Create ? "create" : "upsert",
           options.Resolver,
           snapshot.Epoch,
           key.ToJson(),
           route,
           {target.Text()}});
  detail::RoutedDiagnostics diagnostics({options.Resolver, snapshot.Epoch, std::move(route), {}});
  diagnostics.Tried(target);
  auto& client = Account(target.Account());
  auto header = HeaderValue(key);
  if (kind == WriteKind::Create && resolver.Transition()) {
    std::string_view const id(doc["id"].GetString(), doc["id"].GetStringLength());
    auto const currentHolds = [&] {
      cosmos::RequestOptions plain;
      plain.Timeout = options.Request.Timeout;
      for (auto const& [c, k] : Candidates(*resolver.Transition()->Current, key)) {
        if (c == target) continue;
        try {
          Account(c.Account()).ReadDocument(c.Link(), id, HeaderValue(k), plain);
          return true;
        } catch (cosmos::NotFoundError const&) {}
      }
      return false;
    };
    return WithRouting(diagnostics, [&]() -> RoutedResponse {
      return {CreateInTransition(client, target, id, documentJson, header, options.Request, currentHolds), target};
    });
  }
  return WithRouting(diagnostics, [&]() -> RoutedResponse {
    return {kind == WriteKind::Create
                ? client.CreateDocument(target.Link(), std::move(documentJson), header, options.Request)
                : client.UpsertDocument(target.Link(), std::move(documentJson), header, options.Request),
            target};
  });
}

RoutedResponse PartitionedClient::CreateDocument(std::string documentJson, OperationOptions const& options) {
  return Write(WriteKind::Create, std::move(documentJson), options);
}

RoutedResponse PartitionedClient::UpsertDocument(std::string documentJson, OperationOptions const& options) {
  return Write(WriteKind::Upsert, std::move(documentJson), options);
}

std::vector<std::pair<CollectionRef, PartitionKey>> PartitionedClient::Candidates(IPartitionResolver const& resolver,
                                                                                  PartitionKey const& key) {
  resolver.KeyPath()->CheckKeyShape(key);  // "t1" for ["/a","/b"] is an error, not a miss
  std::vector<std::pair<CollectionRef, PartitionKey>> out;
  for (auto const& k : resolver.KeyPath()->ExpandForRead(key))
    for (auto const& c : resolver.ResolveForRead(ReadSelector::Key(k))) {
      bool seen = false;
      for (auto const& [oc, ok] : out) seen = seen || (oc == c && ok == k);
      if (!seen) out.emplace_back(c, k);
    }
  return out;
}

template <typename Attempt>
RoutedResponse PartitionedClient::OnCandidates(char const* operation, std::string const& resolverName,
                                               Published const& snapshot, IPartitionResolver const& routing,
                                               PartitionKey const& key, bool everyCandidate, Attempt const& attempt) {
  auto candidates = Candidates(routing, key);
  auto route = snapshot.Resolver->ExplainRoute(key);
  if (m_tracing.load(std::memory_order_relaxed)) {
    RoutingTrace t{operation, resolverName, snapshot.Epoch, key.ToJson(), route, {}};
    for (auto const& c : candidates) t.Collections.push_back(c.first.Text());
    Trace(t);
  }
  // The attempts of every collection tried, misses included, and the routing
  // go into the diagnostics of what the caller gets: response or error.
  detail::RoutedDiagnostics diagnostics({resolverName, snapshot.Epoch, std::move(route), {}});
  std::optional<RoutedResponse> first;
  std::exception_ptr lastMiss;
  bool missRethrown = false;
  try {
    for (auto const& [c, k] : candidates) {
      diagnostics.Tried(c);
      try {
        auto response = attempt(c, k);
        diagnostics.Add(response.Diagnostics());
        if (!first) first = RoutedResponse{std::move(response), c};
        if (!everyCandidate) break;
      } catch (cosmos::NotFoundError const& miss) {
        diagnostics.Add(miss.Diagnostics());
        lastMiss = std::current_exception();  // try the next candidate
      }
    }
    if (first) {
      diagnostics.PublishOn(first->Response);
      return std::move(*first);
    }
    if (lastMiss) {
      missRethrown = true;
      std::rethrow_exception(lastMiss);
    }
  } catch (Error& e) {
    if (!missRethrown) diagnostics.Add(e.Diagnostics());  // a miss's were added when it was caught
    diagnostics.PublishOn(e);
    throw;
  }
  throw NoTargetError("no collection can hold key " + key.ToJson());
}

RoutedResponse PartitionedClient::ReadDocument(std::string_view id, PartitionKey const& key,
                                               OperationOptions const& options) {
  auto snapshot = Snapshot(options.Resolver);
  // A provisional copy (a migrator's first write, still marked) is a miss:
  // its source still holds the document, or the application deleted it
  // (docs/migration.md, "Deleted stays deleted"). Without a transition too:
  // after the switch such a copy is a stalled worker's copy of a deleted
  // document, never the only copy of a live one (docs/migration.md says why).
  bool provisional = false;
  auto const read = [&](CollectionRef const& c, PartitionKey const& k) {
    auto response = Account(c.Account()).ReadDocument(c.Link(), id, HeaderValue(k), options.Request);
    if (!detail::IsProvisionalBody(response.Body())) return response;
    provisional = true;
    cosmos::ThrowRequestFailed("ReadDocument", c.Link() + "/docs/" + std::string(id), 404, 0, "",
                               R"({"code":"NotFound","message":"a provisional copy of a document being moved"})");
  };
  if (!snapshot.Resolver->Transition())
    return OnCandidates("read", options.Resolver, snapshot, *snapshot.Resolver, key, false, read);
  try {
    return OnCandidates("read", options.Resolver, snapshot, *snapshot.Resolver, key, false, read);
  } catch (cosmos::NotFoundError const&) {
    if (!provisional) throw;
  }
  // Its mover may have confirmed the copy and removed the source between our
  // two reads: once more (a copy still marked is then not a document).
  return OnCandidates("read", options.Resolver, snapshot, *snapshot.Resolver, key, false, read);
}

RoutedResponse PartitionedClient::ReplaceDocument(std::string_view id, PartitionKey const& key,
                                                  std::string documentJson, OperationOptions const& options) {
  auto snapshot = Snapshot(options.Resolver);
  DropByteOrderMark(documentJson);
  auto doc = ParseDocument(documentJson);
  auto const& path = *snapshot.Resolver->KeyPath();
  auto docKey = path.Extract(doc);
  bool rewritten = detail::RemoveProvisional(doc);  // docshard's own (Write says why)
  bool const sameKey = path.GetKind() == PartitionKeyPath::Kind::RandomSuffix
                           ? docKey.HashBytes().substr(0, key.HashBytes().size()) == key.HashBytes()
                           : docKey == key;
  if (path.IsSynthetic()) {
    StoreSyntheticKey(path, doc, docKey);
    rewritten = true;
  }
  if (!sameKey)
    throw InvalidArgumentError("replace of \"" + std::string(id) + "\": the document's key " + docKey.ToJson() +
                               " differs from the key given " + key.ToJson() + "; delete and create instead");
  // The ring position, when the scheme stores it (docs/migration.md).
  rewritten = StoreRingPosition(Placing(*snapshot.Resolver), doc) || rewritten;
  if (rewritten) documentJson = Serialize(doc);
  // During a transition a replace lands in next, like a create (docs/migration.md).
  if (auto const* transition = snapshot.Resolver->Transition()) {
    detail::RoutedDiagnostics diagnostics({options.Resolver, snapshot.Epoch, snapshot.Resolver->ExplainRoute(key), {}});
    diagnostics.Tried(transition->Next->ResolveForCreate(doc));
    return WithRouting(diagnostics, [&] {
      return detail::ReplaceInTransition(*this, *transition, doc, id, key, documentJson, options);
    });
  }
  return OnCandidates(
      "replace", options.Resolver, snapshot, *snapshot.Resolver, key, false,
      [&](CollectionRef const& c, PartitionKey const& k) {
        return Account(c.Account()).ReplaceDocument(c.Link(), id, documentJson, HeaderValue(k), options.Request);
      });
}

RoutedResponse PartitionedClient::DeleteDocument(std::string_view id, PartitionKey const& key,
                                                 OperationOptions const& options) {
  auto snapshot = Snapshot(options.Resolver);
  // During a transition: current's copy first, then next's, whatever the read
  // mode. A migrator copies into next before it deletes from current, so a
  // delete in this order cannot miss a copy made while it runs (docs/migration.md).
  auto const* transition = snapshot.Resolver->Transition();
  auto const attempt = [&](CollectionRef const& c, PartitionKey const& k) {
    return Account(c.Account()).DeleteDocument(c.Link(), id, HeaderValue(k), options.Request);
  };
  if (transition) {
    // A tombstone where next places the document first (after the routing
    // trace, before the first delete): a migrator that read the document
    // before this delete checks for one right after its provisional copy and
    // before confirming it, and then removes that copy; a copy confirmed
    // before the tombstone is removed by this delete itself (docs/migration.md,
    // "Deleted stays deleted"). One write per delete while a transition is
    // published; with If-Match, the version is read and checked first.
    auto const current = Candidates(*transition->Current, key);
    auto const next = Candidates(*transition->Next, key);
    std::vector<CollectionRef> tried;
    for (auto const* places : {&current, &next})
      for (auto const& [c, k] : *places)
        if (std::find(tried.begin(), tried.end(), c) == tried.end()) tried.push_back(c);
    auto route = snapshot.Resolver->ExplainRoute(key);
    if (m_tracing.load(std::memory_order_relaxed)) {
      RoutingTrace t{"delete", options.Resolver, snapshot.Epoch, key.ToJson(), route, {}};
      for (auto const& c : tried) t.Collections.push_back(c.Text());
      Trace(t);
    }
    detail::RoutedDiagnostics diagnostics({options.Resolver, snapshot.Epoch, std::move(route), {}});
    for (auto const& c : tried) diagnostics.Tried(c);
    return detail::DeleteInTransition(*this, id, current, next, options, diagnostics);
  }
  return OnCandidates("delete", options.Resolver, snapshot, *snapshot.Resolver, key, true, attempt);
}

FanOutResult PartitionedClient::Query(cosmos::SqlQuery const& query, FanOutOptions const& options) {
  auto snapshot = Snapshot(options.Resolver);
  auto selector = options.Selector.value_or(ReadSelector::All());
  detail::FanOutRequest request;
  request.Resolver = options.Resolver;
  request.Epoch = snapshot.Epoch;
  request.Plans = m_plans.get();
  auto targetFor = [&](CollectionRef const& c) -> detail::FanOutTarget& {
    for (auto& t : request.Targets)
      if (t.Collection == c) return t;
    request.Targets.push_back({c, &Account(c.Account()), {}});
    return request.Targets.back();
  };
  bool const singleKeys =
      selector.GetKind() == ReadSelector::Kind::Key || selector.GetKind() == ReadSelector::Kind::Keys;
  if (singleKeys) {
    // Only the collections owning the keys, each read with the partition-key
    // header: no fan-out inside a collection.
    for (auto const& key : selector.GetKeys())
      for (auto const& [c, k] : Candidates(*snapshot.Resolver, key)) {
        auto header = HeaderValue(k).HeaderValue();
        auto& keys = targetFor(c).PartitionKeys;
        if (std::find(keys.begin(), keys.end(), header) == keys.end()) keys.push_back(std::move(header));
      }
  } else {
    for (auto const& c : snapshot.Resolver->ResolveForRead(selector)) targetFor(c);
  }
  auto const& keyPath = *snapshot.Resolver->KeyPath();
  if (selector.GetKind() == ReadSelector::Kind::All && keyPath.GetKind() == PartitionKeyPath::Kind::Path &&
      request.Targets.size() > 1) {
    // WHERE may pin the key: then only its collections are read (by key).
    detail::KeyPinning pinning;
    std::string const& path = keyPath.ServerPath();
    for (std::size_t start = 1; start <= path.size();) {
      auto slash = path.find('/', start);
      std::string seg = path.substr(start, slash == std::string::npos ? std::string::npos : slash - start);
      for (std::size_t p; (p = seg.find("~1")) != std::string::npos;) seg.replace(p, 2, "/");
      for (std::size_t p; (p = seg.find("~0")) != std::string::npos;) seg.replace(p, 2, "~");
      pinning.ServerPath.push_back(std::move(seg));
      if (slash == std::string::npos) break;
      start = slash + 1;
    }
    auto resolver = snapshot.Resolver;
    pinning.TargetsFor = [this, resolver](std::vector<std::string> const& keys) {
      std::vector<detail::FanOutTarget> targets;
      for (auto const& json : keys) {
        std::vector<std::pair<CollectionRef, PartitionKey>> owners;
        try {
          owners = Candidates(*resolver, PartitionKey::ParseJson(json));
        } catch (Error const&) {
          return std::vector<detail::FanOutTarget>{};  // not a key this resolver routes: read everything
        }
        for (auto const& owner : owners) {
          auto const& c = owner.first;  // not a structured binding: clang 14 cannot capture one
          auto const& k = owner.second;
          auto it = std::find_if(targets.begin(), targets.end(), [&](auto const& t) { return t.Collection == c; });
          if (it == targets.end()) {
            targets.push_back({c, &Account(c.Account()), {}});
            it = targets.end() - 1;
          }
          auto header = HeaderValue(k).HeaderValue();
          if (std::find(it->PartitionKeys.begin(), it->PartitionKeys.end(), header) == it->PartitionKeys.end())
            it->PartitionKeys.push_back(std::move(header));
        }
      }
      return targets;
    };
    request.Pinning = std::move(pinning);
  }
  if (auto const* transition = snapshot.Resolver->Transition()) {
    request.ProvisionalIn = transition->Next;
    // Both schemes are read: a document can sit in both while it moves, or
    // when the application rewrote it (into next) before the migrator came.
    auto mode = transition->ReadMode;
    if (mode == TransitionReadMode::ReadBoth || mode == TransitionReadMode::ReadNextThenCurrent) {
      request.Transition = detail::TransitionReads{
          transition->Next, [this](CollectionRef const& c) -> cosmos::CosmosClient& { return Account(c.Account()); }};
    }
  }
  if (m_tracing.load(std::memory_order_relaxed)) {
    RoutingTrace t{"query", options.Resolver, snapshot.Epoch, "", snapshot.Resolver->Type(), {}};
    if (selector.GetKind() == ReadSelector::Kind::Key) t.Key = selector.GetKeys().front().ToJson();
    for (auto const& target : request.Targets) t.Collections.push_back(target.Collection.Text());
    Trace(t);
  }
  return detail::ExecuteFanOut(request, query, options);
}

}  // namespace docshard::client
