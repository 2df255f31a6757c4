/// Codes of channel refusals. Here, the lowest layer, because the server sends them
/// and the client both receives them and raises them itself (a broadcast on a channel
/// it never attached is refused before it is sent).
extension ErrorCode {
    /// The connection already has as many channels attached as the server allows; this
    /// attach was refused (detach another first).
    public static let tooManyChannels = ErrorCode(rawValue: "TOO_MANY_CHANNELS")
    /// A broadcast or sync names a channel this connection (or client) has not attached.
    public static let channelNotAttached = ErrorCode(rawValue: "CHANNEL_NOT_ATTACHED")
    /// The token's channel pattern (its `channels` claim) does not cover this key.
    public static let channelAccessDenied = ErrorCode(rawValue: "CHANNEL_ACCESS_DENIED")

    /// Every channel code, for golden tests and documentation.
    public static let allChannelCodes: [ErrorCode] = [.tooManyChannels, .channelNotAttached, .channelAccessDenied]
}
