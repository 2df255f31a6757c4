/// Who a sync connection's token says its holder is: the user id and the channels the
/// token allows (its `channels` claim; nil: any).
struct SyncIdentity: Sendable {
    var user: String
    var channels: ChannelKeyPattern?
}
