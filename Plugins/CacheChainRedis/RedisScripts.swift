/// The Lua scripts that make each multi-key change atomic inside Redis (one round trip each).
enum RedisScripts {
    /// Stores one variant. KEYS[1] entry hash. ARGV: 1 field, 2 blob, 3 ttl ms, 4 staging key ('' when the
    /// body is inline), 5 body key, 6 cache-key JSON, 7 body-key prefix. Replacing a variant unlinks the
    /// body key of the one it replaces.
    static let store = """
        local old = redis.call('HGET', KEYS[1], ARGV[1])
        if ARGV[4] ~= '' then
          if redis.call('EXISTS', ARGV[4]) == 0 then return redis.error_reply('CACHECHAIN staging body missing') end
          redis.call('RENAME', ARGV[4], ARGV[5])
          redis.call('PEXPIRE', ARGV[5], ARGV[3])
        end
        redis.call('HSET', KEYS[1], 'k', ARGV[6], ARGV[1], ARGV[2])
        if redis.call('PTTL', KEYS[1]) < tonumber(ARGV[3]) then redis.call('PEXPIRE', KEYS[1], ARGV[3]) end
        if old and string.sub(old, 1, 4) == 'CCR1' and string.sub(old, 5, 5) == 'R' then
          local oldBody = ARGV[7] .. string.sub(old, 6, 41)
          if oldBody ~= ARGV[5] then redis.call('UNLINK', oldBody) end
        end
        return 1
        """

    /// Removes a whole key with its body keys. KEYS[1] entry hash. ARGV[1] body-key prefix.
    static let remove = """
        local all = redis.call('HGETALL', KEYS[1])
        for i = 2, #all, 2 do
          local v = all[i]
          if string.sub(v, 1, 4) == 'CCR1' and string.sub(v, 5, 5) == 'R' then
            redis.call('UNLINK', ARGV[1] .. string.sub(v, 6, 41))
          end
        end
        redis.call('UNLINK', KEYS[1])
        return 1
        """

    /// Removes one variant (a damaged one) and the hash when no variant is left. KEYS[1] entry hash.
    /// ARGV: 1 field, 2 body-key prefix.
    static let removeVariant = """
        local v = redis.call('HGET', KEYS[1], ARGV[1])
        if v and string.sub(v, 1, 4) == 'CCR1' and string.sub(v, 5, 5) == 'R' then
          redis.call('UNLINK', ARGV[2] .. string.sub(v, 6, 41))
        end
        redis.call('HDEL', KEYS[1], ARGV[1])
        if redis.call('HLEN', KEYS[1]) <= 1 then redis.call('UNLINK', KEYS[1]) end
        return 1
        """
}
