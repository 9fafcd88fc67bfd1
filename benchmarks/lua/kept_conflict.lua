-- POST /v1/workflows on a signed document, a unique Idempotency-Key each time: every answer
-- is a 409 the mock keeps for replay, and no data is stored. Stops after LIMIT requests.
-- `unexpected` counts answers other than 409 (wrk counts every answer > 399 as an error).
-- args: KEY DOCUMENT_ID KEY_PREFIX LIMIT
local sent = 0
local prefix, body, headers, limit
unexpected = 0
exhausted = 0

function init(args)
  headers = {
    ["Authorization"] = "Bearer " .. args[1],
    ["Content-Type"] = "application/json",
  }
  body = '{"document_id":"' .. args[2]
    .. '","steps":[{"assignee":"soak@mock-us.example"}]}'
  prefix = args[3]
  limit = tonumber(args[4])
end

function request()
  if sent >= limit then
    wrk.thread:stop()
  end
  sent = sent + 1
  headers["Idempotency-Key"] = prefix .. sent
  return wrk.format("POST", "/v1/workflows", headers, body)
end

function response(status, headers, body)
  if status ~= 409 then
    unexpected = unexpected + 1
  end
end
