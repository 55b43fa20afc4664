// Response bytes from an untrusted peer, through the same layers as a live
// response: the transport's Beast parser with its limits
// (http::detail::ParseResponseBytes), then CosmosResponse / QueryPage for a
// success status, or the typed RequestFailedError for an error status.
// Accepted failures: docshard::Error subclasses only.
#include "http/response_parser.hpp"

#include <docshard/core/errors.hpp>
#include <docshard/cosmos/cosmos_response.hpp>
#include <docshard/cosmos/query_page.hpp>
#include <docshard/cosmos/request_failed_error.hpp>

#include <cstdint>
#include <cstdlib>
#include <string_view>

namespace {

docshard::http::HttpTransportOptions Limits() {
  // The transport's defaults, except a smaller body limit so that the
  // fuzzer reaches the limit path with small inputs.
  docshard::http::HttpTransportOptions o;
  o.MaxResponseBodyBytes = 8 * 1024;
  o.MaxResponseHeaderBytes = 4 * 1024;
  return o;
}

void UseSuccess(docshard::cosmos::CosmosResponse response) {
  (void)response.ETag();
  (void)response.RequestCharge();
  (void)response.ActivityId();
  (void)response.SessionToken();
  (void)response.Continuation();
  try {
    docshard::cosmos::QueryPage page(std::move(response));
    std::size_t n = 0;
    for (docshard::JsonView d : page.Documents().Elements()) n += d.IsObject() ? 1 : 0;
    if (n > page.Count()) std::abort();
    (void)page.HasMoreResults();
  } catch (docshard::Error const&) {}
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(std::uint8_t const* data, std::size_t size) {
  static auto const limits = Limits();
  std::string_view const bytes(reinterpret_cast<char const*>(data), size);
  docshard::http::HttpResponse response;
  try {
    response = docshard::http::detail::ParseResponseBytes(bytes, limits);
  } catch (docshard::Error const&) {
    return 0;
  }
  if (response.Body.size() > limits.MaxResponseBodyBytes) std::abort();  // the limit was bypassed
  if (response.Status < 300 || response.Status == 304) {
    UseSuccess(
        docshard::cosmos::CosmosResponse(response.Status, std::move(response.Headers), std::move(response.Body)));
    return 0;
  }
  try {
    docshard::cosmos::ThrowRequestFailed("ReadDocument", "dbs/d/colls/c/docs/x", response.Status, 0, "",
                                         std::move(response.Body));
  } catch (docshard::cosmos::RequestFailedError const& e) {
    if (e.Status() != response.Status) std::abort();
    // The message quotes at most ~300 characters of the service's text.
    if (std::string_view(e.what()).size() > 1024) std::abort();
  }
  return 0;
}
