-- wrk script: POST a small document with a unique id per request (creates).
-- Env: WRK_PATH (/dbs/D/colls/C/docs), WRK_TAG (run tag, keeps ids unique across runs).
local counter = 0
local tag = os.getenv("WRK_TAG") or "wrk"
local path = os.getenv("WRK_PATH")
local thread_id = 0
local threads = {}

function setup(thread)
  thread:set("tid", #threads)
  table.insert(threads, thread)
end

function init(args)
  thread_id = tid or 0
end

request = function()
  counter = counter + 1
  local id = tag .. "-" .. thread_id .. "-" .. counter
  local body = '{"id":"' .. id .. '","pk":"' .. id .. '","n":' .. counter ..
    ',"name":"benchmark document","tags":["a","b","c"],"pad":"0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"}'
  local headers = {}
  headers["Content-Type"] = "application/json"
  headers["x-ms-documentdb-partitionkey"] = '["' .. id .. '"]'
  headers["x-ms-version"] = "2018-12-31"
  return wrk.format("POST", path, headers, body)
end

done = function(summary, latency, requests)
  local codes_ok = summary.requests - (summary.errors.status + summary.errors.connect + summary.errors.read + summary.errors.write + summary.errors.timeout)
  io.write(string.format('WRKJSON {"requests":%d,"durationUs":%d,"statusErrors":%d,"socketErrors":%d,"ok":%d}\n',
    summary.requests, summary.duration, summary.errors.status,
    summary.errors.connect + summary.errors.read + summary.errors.write + summary.errors.timeout, codes_ok))
end
