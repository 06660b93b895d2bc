/**
 * The shared token bucket, as Redis scripts: each runs atomically, on the Redis clock (TIME), so that
 * processes with skewed clocks still agree. Kept as strings because the build bundles with esbuild.
 * A bucket is a hash {tokens, at}: `tokens` at instant `at` (epoch ms), refilled lazily up to capacity.
 */

/**
 * Takes one token. KEYS: bucket, pause. ARGV: capacity, tokens per ms, ttl ms, cap (-1: none; otherwise
 * the bucket holds at most this many, used once after an outage, see SharedBudget).
 * Returns {taken 1|0, ms to wait before asking again, paused 1|0, whole tokens left}.
 * A missing bucket starts full: its TTL is longer than a full refill, so a bucket that expired was idle
 * long enough for the upstream to be full again.
 */
export const TAKE_TOKEN_LUA = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local capacity = tonumber(ARGV[1])
local rate = tonumber(ARGV[2])
local cap = tonumber(ARGV[4])
local state = redis.call('HMGET', KEYS[1], 'tokens', 'at')
local tokens = tonumber(state[1])
local at = tonumber(state[2])
if tokens == nil or at == nil then
  tokens = capacity
  at = now
end
if now > at then
  tokens = math.min(capacity, tokens + (now - at) * rate)
  at = now
end
if cap >= 0 and tokens > cap then tokens = cap end
local paused = tonumber(redis.call('GET', KEYS[2]) or '0') or 0
local taken = 0
local wait = 0
if paused > now then
  wait = paused - now
elseif tokens >= 1 then
  tokens = tokens - 1
  taken = 1
else
  wait = math.ceil((1 - tokens) / rate)
end
redis.call('HSET', KEYS[1], 'tokens', tostring(tokens), 'at', tostring(at))
redis.call('PEXPIRE', KEYS[1], ARGV[3])
return {taken, wait, paused > now and 1 or 0, math.floor(tokens)}
`;

/**
 * Pauses a group for everyone after a 429. KEYS: bucket, pause. ARGV: ms, tokens per ms, ttl ms.
 * The bucket is emptied so that it is back at zero when the pause ends, as the local reservoir is:
 * after a block the group restarts at the sustained rate, not with a burst. Returns the end (Redis epoch ms).
 */
export const PAUSE_GROUP_LUA = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local ms = tonumber(ARGV[1])
local current = tonumber(redis.call('GET', KEYS[2]) or '0') or 0
if now + ms <= current then return current end
redis.call('SET', KEYS[2], tostring(now + ms), 'PX', ms)
redis.call('HSET', KEYS[1], 'tokens', tostring(-ms * tonumber(ARGV[2])), 'at', tostring(now))
redis.call('PEXPIRE', KEYS[1], math.max(tonumber(ARGV[3]), ms + tonumber(ARGV[3])))
return now + ms
`;
