#include <docshard/cosmos/cosmos_client.hpp>

#include <docshard/cosmos/master_key.hpp>
#include <docshard/cosmos/master_key_authorization.hpp>
#include <docshard/cosmos/retry_policy.hpp>
#include <docshard/http/http_date.hpp>

#include "core/json_depth.hpp"
#include "cosmos/resource_path.hpp"

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/asio/use_future.hpp>

#include <charconv>
#include <optional>

namespace docshard {

namespace asio = boost::asio;
using Clock = std::chrono::steady_clock;
using std::chrono::milliseconds;

namespace {

constexpr char const* ApiVersion = "2018-12-31";

unsigned HeaderNumber(http::HttpHeaders const& h, std::string_view name)
{
  auto v = h.Get(name);
  unsigned n = 0;
  if (v)
    std::from_chars(v->data(), v->data() + v->size(), n);
  return n;
}

std::optional<milliseconds> RetryAfter(http::HttpHeaders const& h)
{
  auto v = h.Get("x-ms-retry-after-ms");
  if (!v)
    return std::nullopt;
  double ms = 0;
  auto [p, ec] = std::from_chars(v->data(), v->data() + v->size(), ms);
  if (ec != std::errc{} || ms < 0)
    return std::nullopt;
  return milliseconds(static_cast<std::int64_t>(ms + 0.5));
}

http::HttpTransportOptions TransportOptions(CosmosClientOptions const& o)
{
  http::HttpTransportOptions t;
  t.CaFile = o.CaFile;
  t.ConnectTimeout = o.ConnectTimeout;
  t.AttemptTimeout = o.AttemptTimeout;
  t.MaxResponseBodyBytes = o.MaxResponseBodyBytes;
  t.MaxResponseHeaderBytes = o.MaxResponseHeaderBytes;
  t.MaxConnectionsPerHost = o.MaxConnectionsPerHost;
  t.IdleTimeout = o.IdleTimeout;
  return t;
}

std::vector<std::string> Ids(CosmosResponse const& response, char const* arrayName)
{
  std::vector<std::string> ids;
  auto const doc = response.Json();
  if (!doc.IsObject())
    return ids;
  auto it = doc.FindMember(arrayName);
  if (it == doc.MemberEnd() || !it->value.IsArray())
    return ids;
  for (auto const& item : it->value.GetArray()) {
    if (item.IsObject() && item.HasMember("id") && item["id"].IsString())
      ids.emplace_back(item["id"].GetString(), item["id"].GetStringLength());
  }
  return ids;
}

} // namespace

class CosmosClient::Impl {
public:
  explicit Impl(CosmosClientOptions& options)
      : m_endpointText(options.Endpoint), m_endpoint(http::Endpoint::Parse(options.Endpoint)),
        m_key(options.Key), m_retry(std::move(options.Retry)), m_operationTimeout(options.OperationTimeout),
        m_userAgent("docshard/0.1" + (options.UserAgentSuffix.empty() ? "" : " " + options.UserAgentSuffix)),
        m_transport(TransportOptions(options))
  {
    // The options object stays with the caller; do not leave a copy of the
    // key text behind in it.
    std::fill(options.Key.begin(), options.Key.end(), '\0');
    options.Key.clear();
  }

  asio::awaitable<CosmosResponse> Execute(CosmosRequest req)
  {
    auto const deadline = Clock::now() + req.Timeout.value_or(m_operationTimeout);
    RetryPolicy policy(m_retry, req.Idempotent);
    asio::steady_timer timer(co_await asio::this_coro::executor);
    for (;;) {
      std::optional<http::HttpResponse> response;
      std::exception_ptr failure;
      AttemptOutcome outcome;
      try {
        response = co_await m_transport.AsyncSend(Sign(req), deadline, asio::use_awaitable);
      } catch (TlsError const&) {
        failure = std::current_exception();
        outcome.What = AttemptOutcome::Kind::TlsFailure;
      } catch (TransportError const& e) {
        failure = std::current_exception();
        outcome.What = AttemptOutcome::Kind::TransportFailure;
        outcome.RequestSent = e.RequestSent();
      } catch (TimeoutError const& e) {
        failure = std::current_exception();
        outcome.What = AttemptOutcome::Kind::Timeout;
        outcome.RequestSent = e.RequestSent();
      } catch (ResponseTooLargeError const&) {
        failure = std::current_exception();
        outcome.What = AttemptOutcome::Kind::ResponseTooLarge;
      } catch (CancelledError const&) {
        failure = std::current_exception();
        outcome.What = AttemptOutcome::Kind::Cancelled;
      }
      if (response) {
        if (response->Status < 300 || response->Status == 304)
          co_return CosmosResponse(response->Status, std::move(response->Headers), std::move(response->Body),
                                   policy.Retries());
        outcome.What = AttemptOutcome::Kind::Response;
        outcome.Status = response->Status;
        outcome.RetryAfter = RetryAfter(response->Headers);
      }
      auto const remaining = std::chrono::duration_cast<milliseconds>(deadline - Clock::now());
      auto const delay = policy.NextDelay(outcome, remaining);
      if (!delay) {
        if (failure)
          std::rethrow_exception(failure);
        auto const& h = response->Headers;
        auto activity = h.Get("x-ms-activity-id");
        ThrowRequestFailed(req.Operation, req.ResourceLink, response->Status, HeaderNumber(h, "x-ms-substatus"),
                           activity ? std::string(*activity) : std::string(), std::move(response->Body),
                           outcome.RetryAfter.value_or(milliseconds(0)));
      }
      timer.expires_after(*delay);
      co_await timer.async_wait(asio::use_awaitable);
    }
  }

  // Asio reports a cancelled wait or a cancelled coroutine as a
  // system_error; callers get the documented CancelledError instead.
  asio::awaitable<CosmosResponse> Run(CosmosRequest req)
  {
    auto what = req.Operation + " " + req.ResourceLink;
    try {
      co_return co_await Execute(std::move(req));
    } catch (boost::system::system_error const& e) {
      if (e.code() != asio::error::operation_aborted)
        throw;
    }
    throw CancelledError(what + ": cancelled");
  }

  asio::awaitable<QueryPage> RunForPage(CosmosRequest req)
  {
    co_return QueryPage(co_await Run(std::move(req)));
  }

  // Date and signature are per attempt: a retried request must not carry a
  // stale x-ms-date (the service rejects dates older than 15 minutes).
  http::HttpRequest Sign(CosmosRequest const& req) const
  {
    http::HttpRequest h;
    h.Target = m_endpoint;
    h.Method = req.Method;
    h.Path = detail::EncodePath(req.Path);
    h.Headers = req.Headers;
    h.Body = req.Body;
    h.Idempotent = req.Idempotent;
    auto date = http::FormatHttpDate(std::chrono::system_clock::now());
    h.Headers.Set("authorization",
                  MasterKeyAuthorizationHeader(m_key, req.Method, req.ResourceType, req.ResourceLink, date));
    h.Headers.Set("x-ms-date", std::move(date));
    h.Headers.Set("x-ms-version", ApiVersion);
    // The official SDKs send it on every request; without it the local
    // server answers a point read of a missing document with 500, not 404.
    h.Headers.Set("x-ms-documentdb-query-enablecrosspartition", "true");
    if (!h.Headers.Contains("Accept"))
      h.Headers.Set("Accept", "application/json");
    h.Headers.Set("User-Agent", m_userAgent);
    return h;
  }

  std::string m_endpointText;
  http::Endpoint m_endpoint;
  MasterKey m_key;
  RetryOptions m_retry;
  milliseconds m_operationTimeout;
  std::string m_userAgent;
  http::HttpTransport m_transport;
};

CosmosClient::CosmosClient(CosmosClientOptions options) : m_impl(std::make_unique<Impl>(options)) {}

CosmosClient::~CosmosClient() = default;

std::string const& CosmosClient::Endpoint() const noexcept
{
  return m_impl->m_endpointText;
}

void CosmosClient::StartSend(CosmosRequest request, asio::any_completion_handler<ResponseSignature> handler)
{
  asio::co_spawn(m_impl->m_transport.GetExecutor(), m_impl->Run(std::move(request)), std::move(handler));
}

void CosmosClient::StartSendForPage(CosmosRequest request, asio::any_completion_handler<PageSignature> handler)
{
  asio::co_spawn(m_impl->m_transport.GetExecutor(), m_impl->RunForPage(std::move(request)), std::move(handler));
}

void CosmosClient::CheckNotIoThread() const
{
  if (m_impl->m_transport.RunningInIoThread())
    throw InvalidArgumentError("blocking CosmosClient call on the client's own I/O thread would deadlock; "
                               "use the Async methods from completion handlers");
}

CosmosResponse CosmosClient::Send(CosmosRequest request)
{
  CheckNotIoThread();
  return AsyncSend(std::move(request), asio::use_future).get();
}

asio::any_io_executor CosmosClient::GetExecutor() const
{
  return m_impl->m_transport.GetExecutor();
}

http::HttpTransportStatistics CosmosClient::TransportStatistics() const
{
  return m_impl->m_transport.Statistics();
}

void CosmosClient::CloseIdleConnections()
{
  m_impl->m_transport.CloseIdleConnections();
}

// --- databases -------------------------------------------------------------

CosmosResponse CosmosClient::CreateDatabaseIfNotExists(std::string_view databaseId)
{
  try {
    return ReadDatabase(databaseId);
  } catch (NotFoundError const&) {
  }
  try {
    auto req = CosmosRequests::CreateDatabase(databaseId);
    req.Idempotent = true;  // a repeat that meets our own database gets 409, handled below
    return Send(std::move(req));
  } catch (ConflictError const&) {
    return ReadDatabase(databaseId);
  }
}

CosmosResponse CosmosClient::ReadDatabase(std::string_view databaseId)
{
  return Send(CosmosRequests::ReadDatabase(databaseId));
}

std::vector<std::string> CosmosClient::ListDatabases()
{
  std::vector<std::string> ids;
  std::string continuation;
  do {
    auto page = Send(CosmosRequests::ListDatabases(continuation));
    auto more = Ids(page, "Databases");
    ids.insert(ids.end(), more.begin(), more.end());
    continuation = page.Continuation();
  } while (!continuation.empty());
  return ids;
}

CosmosResponse CosmosClient::DeleteDatabase(std::string_view databaseId)
{
  return Send(CosmosRequests::DeleteDatabase(databaseId));
}

// --- collections -----------------------------------------------------------

CosmosResponse CosmosClient::CreateCollectionIfNotExists(std::string_view databaseId, std::string_view collectionId,
                                                         std::string_view partitionKeyPath)
{
  return CreateCollectionIfNotExists(databaseId, CosmosRequests::CollectionDefinition(collectionId, partitionKeyPath));
}

CosmosResponse CosmosClient::CreateCollectionIfNotExists(std::string_view databaseId, std::string definitionJson)
{
  // The caller's text is parsed recursively: bound its depth first, as every
  // other JSON entry point does.
  if (detail::JsonDepthExceeds(definitionJson))
    throw InvalidArgumentError("collection definition nests deeper than " + std::to_string(detail::MaxJsonDepth)
                               + " levels");
  rapidjson::Document def;
  def.Parse(definitionJson.data(), definitionJson.size());
  if (def.HasParseError() || !def.IsObject() || !def.HasMember("id") || !def["id"].IsString())
    throw InvalidArgumentError("collection definition must be a JSON object with a string \"id\"");
  auto const link = "dbs/" + detail::CheckId(databaseId, "database") + "/colls/"
                  + detail::CheckId(def["id"].GetString(), "collection");
  try {
    return ReadCollection(link);
  } catch (NotFoundError const&) {
  }
  try {
    auto req = CosmosRequests::CreateCollection(databaseId, std::move(definitionJson));
    req.Idempotent = true;  // 409 on a repeat is handled below
    return Send(std::move(req));
  } catch (ConflictError const&) {
    return ReadCollection(link);
  }
}

CosmosResponse CosmosClient::ReadCollection(std::string_view collectionLink)
{
  return Send(CosmosRequests::ReadCollection(collectionLink));
}

std::vector<std::string> CosmosClient::ListCollections(std::string_view databaseId)
{
  std::vector<std::string> ids;
  std::string continuation;
  do {
    auto page = Send(CosmosRequests::ListCollections(databaseId, continuation));
    auto more = Ids(page, "DocumentCollections");
    ids.insert(ids.end(), more.begin(), more.end());
    continuation = page.Continuation();
  } while (!continuation.empty());
  return ids;
}

CosmosResponse CosmosClient::DeleteCollection(std::string_view collectionLink)
{
  return Send(CosmosRequests::DeleteCollection(collectionLink));
}

// --- documents -------------------------------------------------------------

CosmosResponse CosmosClient::CreateDocument(std::string_view collectionLink, std::string documentJson,
                                            PartitionKeyValue const& partitionKey, RequestOptions const& options)
{
  return Send(CosmosRequests::CreateDocument(collectionLink, std::move(documentJson), partitionKey, options));
}

CosmosResponse CosmosClient::UpsertDocument(std::string_view collectionLink, std::string documentJson,
                                            PartitionKeyValue const& partitionKey, RequestOptions const& options)
{
  return Send(CosmosRequests::UpsertDocument(collectionLink, std::move(documentJson), partitionKey, options));
}

CosmosResponse CosmosClient::ReadDocument(std::string_view collectionLink, std::string_view id,
                                          PartitionKeyValue const& partitionKey, RequestOptions const& options)
{
  return Send(CosmosRequests::ReadDocument(collectionLink, id, partitionKey, options));
}

CosmosResponse CosmosClient::ReplaceDocument(std::string_view collectionLink, std::string_view id,
                                             std::string documentJson, PartitionKeyValue const& partitionKey,
                                             RequestOptions const& options)
{
  return Send(CosmosRequests::ReplaceDocument(collectionLink, id, std::move(documentJson), partitionKey, options));
}

CosmosResponse CosmosClient::DeleteDocument(std::string_view collectionLink, std::string_view id,
                                            PartitionKeyValue const& partitionKey, RequestOptions const& options)
{
  return Send(CosmosRequests::DeleteDocument(collectionLink, id, partitionKey, options));
}

// --- queries and feeds -----------------------------------------------------

QueryPage CosmosClient::QueryDocumentsPage(std::string_view collectionLink, SqlQuery const& query,
                                           std::string_view continuation, QueryOptions const& options)
{
  CheckNotIoThread();
  return AsyncQueryDocumentsPage(collectionLink, query, continuation, options, asio::use_future).get();
}

QueryPage CosmosClient::ReadFeedPage(std::string_view collectionLink, std::string_view continuation,
                                     QueryOptions const& options)
{
  CheckNotIoThread();
  return AsyncReadFeedPage(collectionLink, continuation, options, asio::use_future).get();
}

namespace {

template <typename NextPage>
QueryResult CollectAll(NextPage&& next)
{
  QueryResult result;
  auto& alloc = result.Documents.GetAllocator();
  std::string continuation;
  do {
    QueryPage page = next(continuation);
    for (auto const& doc : page.Documents().GetArray())
      result.Documents.PushBack(rapidjson::Value(doc, alloc), alloc);
    result.RequestCharge += page.RequestCharge();
    ++result.Pages;
    continuation = page.Continuation();
  } while (!continuation.empty());
  return result;
}

} // namespace

QueryResult CosmosClient::QueryDocuments(std::string_view collectionLink, SqlQuery const& query,
                                         QueryOptions const& options)
{
  return CollectAll([&](std::string const& c) { return QueryDocumentsPage(collectionLink, query, c, options); });
}

QueryResult CosmosClient::ReadAllDocuments(std::string_view collectionLink, QueryOptions const& options)
{
  return CollectAll([&](std::string const& c) { return ReadFeedPage(collectionLink, c, options); });
}

} // namespace docshard
