-- POST /v1/documents with a unique Idempotency-Key on every request.
-- args: KEY VAULT_ID KEY_PREFIX
local counter = 0
local prefix, body, headers

function init(args)
  prefix = args[3]
  headers = {
    ["Authorization"] = "Bearer " .. args[1],
    ["Content-Type"] = "application/json",
  }
  body = '{"title":"Benchmark NDA","vault_id":"' .. args[2]
    .. '","metadata":{"kind":"nda","amount":12000}}'
end

function request()
  counter = counter + 1
  headers["Idempotency-Key"] = prefix .. counter
  return wrk.format("POST", "/v1/documents", headers, body)
end
