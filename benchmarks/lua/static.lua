-- The same GET again and again (the URL on the command line), with the bearer key.
-- args: KEY
function init(args)
  wrk.headers["Authorization"] = "Bearer " .. args[1]
end
