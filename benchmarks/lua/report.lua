-- Appended to every benchmark script: done() prints one JSON line the harness parses.
-- Latencies are microseconds; status counts answers > 399 (wrk's own definition).
local threads = {}

function setup(thread)
  table.insert(threads, thread)
end

done = function(summary, latency, requests)
  local e = summary.errors
  local exhausted, unexpected = 0, 0
  for _, thread in ipairs(threads) do
    exhausted = exhausted + (thread:get("exhausted") or 0)
    unexpected = unexpected + (thread:get("unexpected") or 0)
  end
  io.write(string.format(
    'WRK_JSON {"requests":%d,"duration_us":%d,"bytes":%d,"p50_us":%d,"p90_us":%d,'
      .. '"p99_us":%d,"max_us":%d,"mean_us":%.1f,"connect_errors":%d,"read_errors":%d,'
      .. '"write_errors":%d,"status_errors":%d,"timeouts":%d,"exhausted":%d,'
      .. '"unexpected":%d}\n',
    summary.requests, summary.duration, summary.bytes,
    latency:percentile(50), latency:percentile(90), latency:percentile(99), latency.max,
    latency.mean, e.connect, e.read, e.write, e.status, e.timeout, exhausted, unexpected))
end
