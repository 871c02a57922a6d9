-- A game's open streams (services/core/presence.py): those of its streams whose marks in
-- the sweeper's list are fresh (the list is what gateways refresh), and its away seats.
--
-- KEYS: 1 the game's streams, 2 every stream's mark, 3 the game's away seats
-- ARGV: 1 game id, 2 the oldest fresh mark (ms), 3 "1" to read the away seats too
local fresh = {}
for _, m in ipairs(redis.call('ZRANGE', KEYS[1], 0, -1)) do
  local score = redis.call('ZSCORE', KEYS[2], ARGV[1] .. '|' .. (string.gsub(m, ':', '|', 1)))
  if score and tonumber(score) >= tonumber(ARGV[2]) then fresh[#fresh + 1] = m end
end
if ARGV[3] == '1' then
  return {fresh, redis.call('HGETALL', KEYS[3])}
end
return {fresh, {}}
