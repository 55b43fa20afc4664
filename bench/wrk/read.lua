-- wrk script for point reads: GET a pre-created document (path from the URL)
-- with the partition-key header; prints a machine-readable summary line.
-- Env: WRK_DOC (the document id, used as its partition key).
local doc = os.getenv("WRK_DOC") or "doc0"
wrk.headers["x-ms-documentdb-partitionkey"] = '["' .. doc .. '"]'
wrk.headers["x-ms-version"] = "2018-12-31"

done = function(summary, latency, requests)
  io.write(string.format('WRKJSON {"requests":%d,"durationUs":%d,"statusErrors":%d,"socketErrors":%d,"ok":%d}\n',
    summary.requests, summary.duration, summary.errors.status,
    summary.errors.connect + summary.errors.read + summary.errors.write + summary.errors.timeout,
    summary.requests - summary.errors.status - summary.errors.connect - summary.errors.read - summary.errors.write - summary.errors.timeout))
end
