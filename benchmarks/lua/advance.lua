-- POST /v1/workflows/{id}/advance, approving, over a supply of in_progress workflows read from
-- a file (one id a line). Ids are taken round robin, so one workflow's turns are a whole lap
-- apart; each gets at most STEPS approvals (its last one completes it). Past that the supply is
-- exhausted: the thread stops and `exhausted` tells the report the figure is invalid.
-- args: KEY IDS_FILE STEPS
local ids = {}
local body = '{"decision":"approve"}'
local headers, steps
local sent = 0
exhausted = 0

function init(args)
  headers = {
    ["Authorization"] = "Bearer " .. args[1],
    ["Content-Type"] = "application/json",
  }
  for line in io.lines(args[2]) do
    table.insert(ids, "/v1/workflows/" .. line .. "/advance")
  end
  steps = tonumber(args[3])
end

function request()
  if sent >= #ids * steps then
    exhausted = 1
    wrk.thread:stop()
  end
  sent = sent + 1
  return wrk.format("POST", ids[(sent - 1) % #ids + 1], headers, body)
end
