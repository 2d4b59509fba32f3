-- wrk's script for the service benchmark: wrk ... -s mix.lua URL -- MIX SEEDED
--   MIX     read  : 90% reads (45% get by objectId, 20% list by author, 15% by tag,
--                   10% a date range), 10% writes (5% create, 5% update)
--           write : 30% reads (15% get, 15% list by author), 40% create, 30% update
--           feed  : POST /feed of 100 items, 50 known (seed-…) and 50 new
--   SEEDED  how many news the run seeded (seed-1 … seed-SEEDED)
-- done() prints one JSON line: requests, rps, p50/p99 in ms, non-2xx answers, socket errors.
local threads = {}

function setup(thread)
    thread:set("number", #threads + 1)
    table.insert(threads, thread)
end

local mix, seeded, counter, number

function init(args)
    mix = args[1] or "read"
    seeded = tonumber(args[2] or "10000")
    counter = 0
    number = number or 0
    math.randomseed(os.time() + number * 7919)
end

local json = { ["Content-Type"] = "application/json" }

local function get() return wrk.format("GET", "/news/seed-" .. math.random(seeded)) end
local function byAuthor() return wrk.format("GET", "/news?author=author-" .. math.random(100) .. "&limit=20") end
local function byTag() return wrk.format("GET", "/news?tag=tag-" .. math.random(20) .. "&sort=title&limit=20") end
local function range()
    return wrk.format("GET", "/news?since=2000-01-01T00:00:00Z&until=2100-01-01T00:00:00Z&sort=-dateCreated&limit=20&offset=" .. math.random(0, 200))
end
local function create()
    counter = counter + 1
    local body = string.format('{"title":"wrk %d-%d","body":"A story written under load.","author":"author-%d","tags":["tag-%d","tag-%d"]}',
        number, counter, math.random(100), math.random(20), math.random(20))
    return wrk.format("POST", "/news", json, body)
end
local function update()
    local body = string.format('{"title":"updated under load %d","body":"changed"}', math.random(1000000))
    return wrk.format("PATCH", "/news/seed-" .. math.random(seeded), json, body)
end
local function feed()
    counter = counter + 1
    local items = {}
    for i = 1, 50 do
        items[#items + 1] = string.format('{"objectId":"seed-%d","title":"refreshed %d","author":"author-%d"}', math.random(seeded), counter, math.random(100))
    end
    for i = 1, 50 do
        items[#items + 1] = string.format('{"objectId":"feed-%d-%d-%d","title":"new from the feed","body":"…","author":"author-%d","tags":["tag-%d"]}',
            number, counter, i, math.random(100), math.random(20))
    end
    -- a random slice of seeds can repeat: keep the first of each objectId
    local seen, unique = {}, {}
    for _, item in ipairs(items) do
        local id = item:match('"objectId":"([^"]+)"')
        if not seen[id] then seen[id] = true; unique[#unique + 1] = item end
    end
    return wrk.format("POST", "/feed", json, "[" .. table.concat(unique, ",") .. "]")
end

function request()
    if mix == "feed" then return feed() end
    local r = math.random(100)
    if mix == "write" then
        if r <= 15 then return get() elseif r <= 30 then return byAuthor() elseif r <= 70 then return create() else return update() end
    end
    if r <= 45 then return get() elseif r <= 65 then return byAuthor() elseif r <= 80 then return byTag()
    elseif r <= 90 then return range() elseif r <= 95 then return create() else return update() end
end

function done(summary, latency, requests)
    local errors = summary.errors
    io.write(string.format('{"requests":%d,"seconds":%.2f,"rps":%.1f,"p50_ms":%.2f,"p99_ms":%.2f,"non2xx":%d,"socket_errors":%d}\n',
        summary.requests, summary.duration / 1e6, summary.requests / (summary.duration / 1e6),
        latency:percentile(50) / 1000, latency:percentile(99) / 1000,
        errors.status, errors.connect + errors.read + errors.write + errors.timeout))
end
