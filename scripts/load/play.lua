-- wrk script: each wrk thread owns one connection and replays its own plan
-- file of action submissions in order (games prepared by load_driver.py, one
-- request per line: path, token and JSON body separated by tabs). With one
-- connection per thread the requests of a plan are strictly sequential, so a
-- game's moves arrive in the order they were recorded.
--
-- Set PLAN_PREFIX in the environment; thread N reads PLAN_PREFIX..N..".tsv".
-- When a thread runs out of planned actions it stops, and done() says so.

local threads = {}
local counter = 0

function setup(thread)
  thread:set("index", counter)
  counter = counter + 1
  table.insert(threads, thread)
end

function init(args)
  plan = {}
  local name = os.getenv("PLAN_PREFIX") .. index .. ".tsv"
  for line in io.lines(name) do
    local path, token, body = line:match("^([^\t]*)\t([^\t]*)\t(.*)$")
    plan[#plan + 1] = wrk.format("POST", path, {
      ["Content-Type"] = "application/json",
      ["Authorization"] = "Bearer " .. token,
    }, body)
  end
  position = 0
  accepted = 0
  refused = 0
  exhausted = 0
  first_refusal = ""
  -- wrk calls request() once on thread 0, right after init, only to check
  -- the request (script_verify_request); that request is never sent, so it
  -- must not consume a planned action.
  verifying = (index == 0)
end

function request()
  if verifying then
    verifying = false
    return plan[1]
  end
  position = position + 1
  if position > #plan then
    exhausted = 1
    wrk.thread:stop()
    -- Something must be returned; the thread has stopped, so this cheap
    -- request is never sent as part of the measurement.
    return wrk.format("GET", "/healthz")
  end
  return plan[position]
end

function response(status, headers, body)
  if status == 201 then
    accepted = accepted + 1
  else
    refused = refused + 1
    if first_refusal == "" then
      first_refusal = "thread " .. index .. " action " .. position .. ": " .. status .. " " .. body
    end
  end
end

function done(summary, latency, requests)
  local accepted_total, refused_total, exhausted_total = 0, 0, 0
  local refusal = ""
  for _, thread in ipairs(threads) do
    accepted_total = accepted_total + thread:get("accepted")
    refused_total = refused_total + thread:get("refused")
    exhausted_total = exhausted_total + thread:get("exhausted")
    if refusal == "" then refusal = thread:get("first_refusal") end
  end
  io.write(string.format(
    "RESULT accepted=%d refused=%d exhausted_threads=%d duration_us=%d p50_us=%d p99_us=%d mean_us=%.0f errors_connect=%d errors_timeout=%d\n",
    accepted_total, refused_total, exhausted_total, summary.duration,
    latency:percentile(50), latency:percentile(99), latency.mean,
    summary.errors.connect, summary.errors.timeout))
  if refusal ~= "" then
    io.write("FIRST_REFUSAL " .. refusal:gsub("\n", " ") .. "\n")
  end
end
