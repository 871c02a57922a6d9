-- A live stream of a seat opened or closed (services/core/presence.py), in one round trip:
-- its marks written, and, when the seat's state changed (its first stream opened, its
-- last closed), every seat's presence published on the channel for the live hubs.
--
-- KEYS: 1 the game's streams, 2 the game's away seats, 3 every stream's mark, 4 absent
--       seats (all under the {pr} hash tag)
-- ARGV: 1 "open" | "close" | "forget" (a finished game's stream closed: nothing of the
--       seat is kept, nothing published), 2 game id, 3 seat, 4 stream id, 5 now (ms), 6 gone after (ms),
--       7 channel, 8 away since (ms; close only), 9 "1" when the game is
--       turn-based (open only): its seats are away, never gone (their clocks decide), which
--       the away hash keeps as its field "turn_based" for closes that do not know (the
--       sweeper's)
-- Returns 1 when it published, 0 when nothing changed for anyone.
local mode, game, seat, stream = ARGV[1], ARGV[2], ARGV[3], ARGV[4]
local now, gone_after = tonumber(ARGV[5]), tonumber(ARGV[6])
local member, mark, absent = seat .. ':' .. stream, game .. '|' .. seat .. '|' .. stream, game .. '|' .. seat
local week = 7 * 24 * 3600

-- A game's streams are open until closed: marks go stale only in KEYS[3], the sweeper's
-- list, which each gateway refreshes for all its streams at once (one ZADD per thousand).
local function open_streams()
  return redis.call('ZRANGE', KEYS[1], 0, -1)
end

local function has_stream(s)
  for _, m in ipairs(open_streams()) do
    if string.match(m, '^(%d+):') == s then return true end
  end
  return false
end

if mode == 'forget' then
  redis.call('ZREM', KEYS[1], member)
  redis.call('ZREM', KEYS[3], mark)
  redis.call('HDEL', KEYS[2], seat)
  redis.call('ZREM', KEYS[4], absent)
  return 0
end

if mode == 'open' then
  local already = has_stream(seat)
  if ARGV[9] == '1' then
    redis.call('HSET', KEYS[2], 'turn_based', 1)
    redis.call('EXPIRE', KEYS[2], week)
  end
  redis.call('ZADD', KEYS[1], now, member)
  redis.call('ZADD', KEYS[3], now, mark)
  redis.call('HDEL', KEYS[2], seat)
  redis.call('ZREM', KEYS[4], absent)
  redis.call('EXPIRE', KEYS[1], week)
  if already then return 0 end
else
  redis.call('ZREM', KEYS[1], member)
  redis.call('ZREM', KEYS[3], mark)
  if has_stream(seat) then return 0 end
  local since = tonumber(ARGV[8])
  redis.call('HSET', KEYS[2], seat, since)
  redis.call('EXPIRE', KEYS[2], week)
  -- Only a real-time seat is the sweeper's work: nobody stands in at a turn-based one.
  if redis.call('HEXISTS', KEYS[2], 'turn_based') == 0 then
    redis.call('ZADD', KEYS[4], 'NX', since, absent)
  end
end

local states = {}
local away = redis.call('HGETALL', KEYS[2])
local patient = redis.call('HEXISTS', KEYS[2], 'turn_based') == 1
for i = 1, #away, 2 do
  if away[i] ~= 'turn_based' then
    local since = tonumber(away[i + 1])
    local state = 'away'
    if not patient and now - since >= gone_after then state = 'gone' end
    states[away[i]] = {seat = tonumber(away[i]), state = state, since_ms = since}
  end
end
for _, m in ipairs(open_streams()) do
  local s = string.match(m, '^(%d+):')
  states[s] = {seat = tonumber(s), state = 'connected', since_ms = 0}
end
local seats = {}
for _, v in pairs(states) do seats[#seats + 1] = v end
table.sort(seats, function(a, b) return a.seat < b.seat end)
redis.call('PUBLISH', ARGV[7], cjson.encode({game_id = game, seats = seats}))
return 1
