-- Atomic append of one command's events to a game (DESIGN §3).
--
-- KEYS: 1 game stream, 2 game meta, 3 game command ids, 4 partition log, 5 partition seq,
--       6 partition attended log. All six share the partition's hash tag, so this runs
--       on Redis Cluster too.
-- ARGV: 1 expected version, 2 command id, 3 game id, 4 game type, 5 time ms,
--       6 engine version, 7 partition, 8 max events, 9 max event bytes, 10 event count,
--       11 attended ("1"/"0": read when the game is created; a "1" later upgrades it),
--       12 idempotency key (the command id scoped by who sent it: "<seat>:<command id>"),
--       13 digest of the command (hex, may be empty), 14 the command as it was sent
--       (JSON, may be empty: kept in the game stream with its first event, field "k",
--       for the game's portable record; not copied to the partition logs),
--       then 5 per event: id, type, schema version, payload, actor seat.
--
-- The partition log holds one entry per append: under the append's last position, the
-- game id ('g'), its type ('y') and the append's events as one text ('x', the same text
-- live readers hear: services.core.eventstore.announce).
-- An attended game (one a runner must follow: bots, clocks, tournaments) has each log
-- entry copied, under the same id, to the attended log. Whether a game is attended is
-- recorded in its meta when it is created; a game without the record (created before
-- the attended log existed) counts as attended, so no runner loses sight of it.
--
-- Lua does not roll back, so every argument is validated before the first write.
-- Replies: {"ok", version, first position, count}
--          | {"dup", version, first position, count, digest of the first command}
--          | {"conflict", current version} | {"invalid", code, message}

local HEAD = 14
local PER_EVENT = 5
local ANNOUNCE_BYTES = 16384  -- larger appends announce their version only

local function invalid(code, message)
  return {'invalid', code, message}
end

local function is_uint(s)
  return type(s) == 'string' and #s > 0 and #s <= 15 and string.match(s, '^%d+$') ~= nil
end

local function is_int(s)
  return type(s) == 'string' and #s > 0 and #s <= 15 and string.match(s, '^%-?%d+$') ~= nil
end

-- Strict UTF-8 (no overlongs, no surrogates, nothing above U+10FFFF), no control bytes.
local function is_utf8_text(s)
  -- Printable ASCII (ids, types, names almost always) in one scan in C.
  if not string.find(s, '[^\32-\126]') then return true end
  local i, n = 1, #s
  while i <= n do
    local c = string.byte(s, i)
    local len, lo, hi = 0, 0x80, 0xBF
    if c < 0x20 or c == 0x7F then return false
    elseif c < 0x80 then len = 1
    elseif c >= 0xC2 and c <= 0xDF then len = 2
    elseif c >= 0xE0 and c <= 0xEF then
      len = 3
      if c == 0xE0 then lo = 0xA0 elseif c == 0xED then hi = 0x9F end
    elseif c >= 0xF0 and c <= 0xF4 then
      len = 4
      if c == 0xF0 then lo = 0x90 elseif c == 0xF4 then hi = 0x8F end
    else return false end
    if i + len - 1 > n then return false end
    for k = 1, len - 1 do
      local b = string.byte(s, i + k)
      local blo, bhi = 0x80, 0xBF
      if k == 1 then blo, bhi = lo, hi end
      if b < blo or b > bhi then return false end
    end
    i = i + len
  end
  return true
end

local function is_name(s, max)
  return type(s) == 'string' and #s > 0 and #s <= max and is_utf8_text(s)
end

-- 1. Validate everything.
if #KEYS ~= 6 then return invalid('bad_keys', 'append needs exactly 6 keys') end
if #ARGV < HEAD then return invalid('bad_arguments', 'missing arguments') end
local expected, command_id, game_id, game_type = ARGV[1], ARGV[2], ARGV[3], ARGV[4]
local time_ms, engine, partition = ARGV[5], ARGV[6], ARGV[7]
if not is_uint(expected) then return invalid('bad_version', 'expected version must be a non-negative integer') end
if not is_name(command_id, 128) then return invalid('bad_command_id', 'command id must be 1-128 printable UTF-8 bytes') end
if not is_name(game_id, 128) then return invalid('bad_game_id', 'game id must be 1-128 printable UTF-8 bytes') end
if not is_name(game_type, 64) then return invalid('bad_game_type', 'game type must be 1-64 printable UTF-8 bytes') end
if not is_uint(time_ms) then return invalid('bad_time', 'time must be a non-negative integer of ms') end
if not is_name(engine, 64) then return invalid('bad_engine_version', 'engine version must be 1-64 printable UTF-8 bytes') end
if not is_uint(partition) then return invalid('bad_partition', 'partition must be a non-negative integer') end
if not is_uint(ARGV[8]) or not is_uint(ARGV[9]) or not is_uint(ARGV[10]) then
  return invalid('bad_arguments', 'limits and count must be non-negative integers')
end
if ARGV[11] ~= '0' and ARGV[11] ~= '1' then
  return invalid('bad_arguments', 'attended must be 0 or 1')
end
local key, digest, said_command = ARGV[12], ARGV[13], ARGV[14]
if not is_name(key, 200) then return invalid('bad_command_id', 'idempotency key must be 1-200 printable UTF-8 bytes') end
if #digest > 64 or string.find(digest, '[^0-9a-f]') then return invalid('bad_arguments', 'digest must be hex') end
if #said_command > tonumber(ARGV[9]) then return invalid('event_too_large', 'the command is larger than ' .. ARGV[9] .. ' bytes') end
local max_events, max_bytes, n = tonumber(ARGV[8]), tonumber(ARGV[9]), tonumber(ARGV[10])
if n < 1 then return invalid('no_events', 'an append needs at least one event') end
if n > max_events then return invalid('too_many_events', 'at most ' .. max_events .. ' events per append') end
if #ARGV ~= HEAD + n * PER_EVENT then return invalid('bad_arguments', 'event count does not match the arguments') end
local payload_bytes = 0
for e = 0, n - 1 do
  local b = HEAD + e * PER_EVENT
  local eid, etype, eschema, epayload, eactor = ARGV[b + 1], ARGV[b + 2], ARGV[b + 3], ARGV[b + 4], ARGV[b + 5]
  payload_bytes = payload_bytes + #epayload
  if not is_name(eid, 64) then return invalid('bad_event_id', 'event ' .. (e + 1) .. ': id must be 1-64 printable UTF-8 bytes') end
  if not is_name(etype, 64) then return invalid('bad_event_type', 'event ' .. (e + 1) .. ': type must be 1-64 printable UTF-8 bytes') end
  if not is_uint(eschema) then return invalid('bad_schema_version', 'event ' .. (e + 1) .. ': schema version must be a non-negative integer') end
  if not is_int(eactor) then return invalid('bad_actor', 'event ' .. (e + 1) .. ': actor seat must be an integer') end
  if #epayload + #etype > max_bytes then return invalid('event_too_large', 'event ' .. (e + 1) .. ' is larger than ' .. max_bytes .. ' bytes') end
end

-- 2. A known idempotency key answers with its first result and writes nothing (the
-- caller compares the digests: the same key with another command is refused there).
local known = redis.call('HGET', KEYS[3], key)
if known then
  local v, p, c = string.match(known, '^(%d+):(%d+):(%d+)')
  local d = string.match(known, '^%d+:%d+:%d+:(%x*)$') or ''
  return {'dup', tonumber(v), tonumber(p), tonumber(c), d}
end

-- 3. Optimistic concurrency on the version kept in meta (never XLEN).
local meta = redis.call('HMGET', KEYS[2], 'version', 'type', 'attended')
local current = tonumber(meta[1] or '0')
if current ~= tonumber(expected) then return {'conflict', current} end
if meta[2] and meta[2] ~= game_type then
  return invalid('game_type_mismatch', 'game ' .. game_id .. ' is a ' .. meta[2] .. ' game')
end

-- 4. Write.
-- A game not attended so far becomes so when an append asks (a bot now stands in for
-- a seat: services.kernel.table); it never stops being attended.
local attended = ARGV[11]
local upgraded = false
if current > 0 then
  local was = meta[3] or '1'
  upgraded = was ~= '1' and attended == '1'
  if not upgraded then attended = was end
end
local seq = tonumber(redis.call('GET', KEYS[5]) or '0')
local first_position = seq + 1
for e = 0, n - 1 do
  local b = HEAD + e * PER_EVENT
  local version = current + e + 1
  if e == 0 and #said_command > 0 then  -- the command itself, with its first event
    redis.call('XADD', KEYS[1], version .. '-0',
      'i', ARGV[b + 1], 't', ARGV[b + 2], 's', ARGV[b + 3], 'p', ARGV[b + 4], 'a', ARGV[b + 5],
      'c', command_id, 'm', time_ms, 'e', engine, 'k', said_command)
  else
    redis.call('XADD', KEYS[1], version .. '-0',
      'i', ARGV[b + 1], 't', ARGV[b + 2], 's', ARGV[b + 3], 'p', ARGV[b + 4], 'a', ARGV[b + 5],
      'c', command_id, 'm', time_ms, 'e', engine)
  end
end
local new_version = current + n
seq = seq + n
-- The append's events, as one text (services.core.eventstore.announce):
-- "<version>\n<count>\n<command id>\n<time>\n<engine>" and per event
-- "\n<id>\n<type>\n<schema>\n<actor>\n<payload bytes>\n<payload>" (names are printable,
-- checked above; a payload is counted, not scanned). The partition log keeps it as one
-- entry per append, under the append's last position (an entry per event was 1.3 more
-- XADDs a move, each copying fields the text holds once), and live readers hear it.
local said = {new_version, n, command_id, time_ms, engine}
for e = 0, n - 1 do
  local b = HEAD + e * PER_EVENT
  local payload = ARGV[b + 4]
  said[#said + 1] = ARGV[b + 1] .. '\n' .. ARGV[b + 2] .. '\n' .. ARGV[b + 3] .. '\n' ..
    ARGV[b + 5] .. '\n' .. #payload .. '\n' .. payload
end
local text = table.concat(said, '\n')
redis.call('XADD', KEYS[4], seq .. '-0', 'g', game_id, 'y', game_type, 'x', text)
if attended == '1' then
  redis.call('XADD', KEYS[6], seq .. '-0', 'g', game_id, 'y', game_type, 'x', text)
end
redis.call('SET', KEYS[5], seq)
if current == 0 then
  redis.call('HSET', KEYS[2], 'type', game_type, 'created', time_ms, 'partition', partition,
    'attended', attended)
end
if upgraded then redis.call('HSET', KEYS[2], 'attended', '1') end
local last_id = ARGV[HEAD + (n - 1) * PER_EVENT + 1]
redis.call('HSET', KEYS[2], 'version', new_version, 'last_event_id', last_id, 'updated', time_ms)
redis.call('HSET', KEYS[3], key, new_version .. ':' .. first_position .. ':' .. n .. ':' .. digest)
-- Live readers (each gateway's fan-out, waiters on a version) hear of the new version on
-- the game stream's own name, with the events themselves when they are small, so a
-- gateway fans them out without reading them back. With no listener this costs next to
-- nothing.
if payload_bytes <= ANNOUNCE_BYTES then
  redis.call('PUBLISH', KEYS[1], text)
else
  redis.call('PUBLISH', KEYS[1], new_version)
end
return {'ok', new_version, first_position, n}
