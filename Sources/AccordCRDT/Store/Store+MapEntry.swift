extension Store {
    /// The item map `t` holds for `key` (its value, or a deleted one), nil when the key
    /// never had an entry there.
    ///
    /// `mutating` though it changes nothing: callers reach it as `doc.store.mapEntry(…)`,
    /// and a non-mutating call on a class's struct property is handed a copy of the whole
    /// Store (every array retained, then released): about 900 instructions, more than
    /// the look-up, for each record a save asks about.
    mutating func mapEntry(_ t: Int32, key: String) -> ItemRef? {
        guard let k = knownKey(key) else { return nil }
        return types[Int(t)].map[k]
    }
}
