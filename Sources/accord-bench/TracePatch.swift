/// One splice of an editing trace: at `position`, delete `deleteCount` units, then
/// insert `insert`. Positions and counts are UTF-16 units, the unit of ``YText``
/// (traces count code points; ``EditingTrace`` converts).
struct TracePatch {
    var position: Int
    var deleteCount: Int
    var insert: String
}
