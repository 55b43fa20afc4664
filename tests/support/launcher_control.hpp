#pragma once
// The control endpoints of the local server's launcher (tools/cosmos-server/README.md:
// /_docshard/faults, /_docshard/split, /_docshard/state) at a URL, over verified TLS.
// Every call throws std::runtime_error naming the path when the launcher answers other
// than 200. test::ServerControl (test_server.hpp) finds a fixture's server by role.
#include <docshard/http/http_transport.hpp>

#include <rapidjson/document.h>

#include <map>
#include <string>
#include <vector>

namespace docshard::test {

class LauncherControl {
public:
  LauncherControl(std::string url, std::string const& caFile);
  LauncherControl(LauncherControl const&) = delete;
  LauncherControl& operator=(LauncherControl const&) = delete;

  // `method` `path` with a JSON `body` (none when empty); the answer's JSON.
  rapidjson::Document Call(char const* method, std::string const& path, std::string body = {});

  // Splits partition key range `range` of the collection `link` (dbs/D/colls/C); the
  // children's range ids.
  std::vector<std::string> Split(std::string const& link, std::string const& range);
  // Documents per partition key range id of the collection `link`, as the server counts
  // them (gateway mode).
  std::map<std::string, int> RangeDocuments(std::string const& link);

private:
  std::string m_url;
  http::HttpTransport m_transport;
};

}  // namespace docshard::test
