-- Holds the signing keys for a rotation: two rotations at once would leave two keys that sign.
lock table signing_keys in exclusive mode
