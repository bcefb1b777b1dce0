-- The requests each wrk run of benchmarks/bench_pages.py sends, and its summary line.
--
-- wrk -s benchmarks/bench_pages.lua URL -- METHOD [BODY [FIELD [THREADS PATH...]]]
-- BODY is sent as it is; with FIELD, each request appends FIELD=<a number of its own> to it,
-- so that every POST of a step changes an answer and is a real save. With PATHs, each wrk
-- thread takes its share of them (every THREADS-th) and sends its requests to them in turn:
-- saves spread over several assessments, as people's are, rather than all racing for one.
-- The headers (cookies, Content-Type) come from wrk's -H options. At the end one line,
-- "BENCH {json}", carries what bench_pages.py reads: requests, duration, latency
-- percentiles and wrk's error counts.

local threads = {}

function setup(thread)
  thread:set("id", #threads)
  table.insert(threads, thread)
end

function init(args)
  method = args[1] or "GET"
  body = args[2]
  field = args[3]
  if body == "" then
    body = nil
  end
  paths = {}
  local share = tonumber(args[4] or "1")
  for i = 5, #args do
    if (i - 5) % share == id then
      table.insert(paths, args[i])
    end
  end
  sent = 0
  fixed = wrk.format(method, nil, nil, body)
end

function request()
  if not field and #paths == 0 then
    return fixed
  end
  sent = sent + 1
  local path = nil
  if #paths > 0 then
    path = paths[sent % #paths + 1]
  end
  local sending = body
  if field then
    sending = body .. "&" .. field .. "=" .. (8 + (id * 45000 + sent) % 90000)
  end
  return wrk.format(method, path, nil, sending)
end

function done(summary, latency, requests)
  local e = summary.errors
  io.write(string.format(
    'BENCH {"requests": %d, "duration_us": %d, "p50_us": %.0f, "p99_us": %.0f, '
      .. '"connect": %d, "read": %d, "write": %d, "status": %d, "timeout": %d}\n',
    summary.requests, summary.duration, latency:percentile(50), latency:percentile(99),
    e.connect, e.read, e.write, e.status, e.timeout
  ))
end
