/// The Lua scripts that make each multi-key change atomic inside Redis (one round trip each).
enum RedisScripts {
    /// A Lua function: the body key a variant's value references, or nil for an inline body. A value is an
    /// `EntryCodec` record (`CCDE`, version, reference length r at byte 6, the reference from byte 27); an
    /// older build's value (`CCR1R` + 36-character id) still has its body key removed with it.
    private static let bodyKeyFunction = """
        local function bodyKey(v, prefix)
          if not v then return nil end
          if string.sub(v, 1, 4) == 'CCDE' then
            local r = string.byte(v, 6) or 0
            if r > 0 then return prefix .. string.sub(v, 27, 26 + r) end
          elseif string.sub(v, 1, 5) == 'CCR1R' then
            return prefix .. string.sub(v, 6, 41)
          end
          return nil
        end

        """

    /// Stores one variant. KEYS[1] entry hash. ARGV: 1 field, 2 value, 3 ttl ms, 4 staging key ('' when the
    /// body is inline), 5 body key, 6 encoded cache key (`EntryCodec.encodeKey`), 7 body-key prefix.
    /// Replacing a variant unlinks the body key of the one it replaces.
    static let store = bodyKeyFunction + """
        local old = bodyKey(redis.call('HGET', KEYS[1], ARGV[1]), ARGV[7])
        if ARGV[4] ~= '' then
          if redis.call('EXISTS', ARGV[4]) == 0 then return redis.error_reply('CACHECHAIN staging body missing') end
          redis.call('RENAME', ARGV[4], ARGV[5])
          redis.call('PEXPIRE', ARGV[5], ARGV[3])
        end
        redis.call('HSET', KEYS[1], 'k', ARGV[6], ARGV[1], ARGV[2])
        if redis.call('PTTL', KEYS[1]) < tonumber(ARGV[3]) then redis.call('PEXPIRE', KEYS[1], ARGV[3]) end
        if old and old ~= ARGV[5] then redis.call('UNLINK', old) end
        return 1
        """

    /// Adds an entry hash to its target's set (the keys of one method and URL that have a discriminator or another
    /// method than `GET`: the `QUERY`s of a URI), which lives at least as long as the entry. KEYS[1] target set.
    /// ARGV: 1 entry hash, 2 ttl ms.
    static let indexTarget = """
        redis.call('SADD', KEYS[1], ARGV[1])
        if redis.call('PTTL', KEYS[1]) < tonumber(ARGV[2]) then redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
        return 1
        """

    /// Removes every entry hash of a target's set, with its body keys, then the set. KEYS[1] target set.
    /// ARGV[1] body-key prefix.
    static let removeTarget = bodyKeyFunction + """
        local hashes = redis.call('SMEMBERS', KEYS[1])
        for _, hash in ipairs(hashes) do
          local all = redis.call('HGETALL', hash)
          for i = 2, #all, 2 do
            local body = bodyKey(all[i], ARGV[1])
            if body then redis.call('UNLINK', body) end
          end
          redis.call('UNLINK', hash)
        end
        redis.call('UNLINK', KEYS[1])
        return #hashes
        """

    /// Removes a whole key with its body keys. KEYS[1] entry hash. ARGV[1] body-key prefix.
    static let remove = bodyKeyFunction + """
        local all = redis.call('HGETALL', KEYS[1])
        for i = 2, #all, 2 do
          local body = bodyKey(all[i], ARGV[1])
          if body then redis.call('UNLINK', body) end
        end
        redis.call('UNLINK', KEYS[1])
        return 1
        """

    /// Removes one variant (a damaged one) and the hash when no variant is left. KEYS[1] entry hash.
    /// ARGV: 1 field, 2 body-key prefix.
    static let removeVariant = bodyKeyFunction + """
        local body = bodyKey(redis.call('HGET', KEYS[1], ARGV[1]), ARGV[2])
        if body then redis.call('UNLINK', body) end
        redis.call('HDEL', KEYS[1], ARGV[1])
        if redis.call('HLEN', KEYS[1]) <= 1 then redis.call('UNLINK', KEYS[1]) end
        return 1
        """

    /// Adds a variant to a group's set (members: entry hash, a NUL, the variant's field), which lives at least as
    /// long as the entry. KEYS[1] group set. ARGV: 1 member, 2 ttl ms.
    static let indexGroup = indexTarget

    /// Removes every variant listed in a group's set (one replaced since goes too), with its body key, each hash left
    /// without a variant, then the set. KEYS[1] group set. ARGV[1] body-key prefix.
    static let removeGroup = bodyKeyFunction + """
        local members = redis.call('SMEMBERS', KEYS[1])
        for _, member in ipairs(members) do
          local cut = string.find(member, '\\0', 1, true)
          if cut then
            local hash = string.sub(member, 1, cut - 1)
            local field = string.sub(member, cut + 1)
            local body = bodyKey(redis.call('HGET', hash, field), ARGV[1])
            if body then redis.call('UNLINK', body) end
            redis.call('HDEL', hash, field)
            if redis.call('HLEN', hash) <= 1 then redis.call('UNLINK', hash) end
          end
        end
        redis.call('UNLINK', KEYS[1])
        return #members
        """
}
