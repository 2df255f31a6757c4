import AccordCRDT
import AccordServer

/// `accord token --sub <user> [--ttl <seconds>] [--channels <pattern>] [--admin] [--email <address>] [--secret-file <path>]`: mints a bearer
/// token with the server's secret, for operators and scripts (the server has no login;
/// whoever holds the secret issues tokens).
enum TokenCommand {
    static let defaultTTL = 3600

    static func run(_ args: inout Arguments, help: Bool) throws(AccordError) {
        if help {
            Output.print(Usage.token)
            return
        }
        let subject = try args.removeOption("--sub")
        let ttlText = try args.removeOption("--ttl")
        let secretFile = try args.removeOption("--secret-file")
        let channelsText = try args.removeOption("--channels")
        let admin = args.removeFlag("--admin")
        let emailText = try args.removeOption("--email")
        if let extra = try args.positionals().first {
            throw AccordCommand.usageError("unexpected argument '\(extra)'", help: "accord token --help")
        }
        guard let subject, !subject.isEmpty else {
            throw AccordCommand.usageError("token needs a user id: --sub <user>", help: "accord token --help")
        }
        // A token the server would refuse helps nobody: say why now.
        if let problem = TokenAuthority.subjectProblem(subject) {
            throw AccordCommand.usageError("--sub is not a valid user id: \(problem)", help: "accord token --help")
        }
        var ttl = defaultTTL
        if let ttlText {
            guard let seconds = Int(ttlText), seconds > 0 else {
                throw AccordCommand.usageError(
                    "--ttl takes a positive whole number of seconds, not '\(ttlText)'", help: "accord token --help")
            }
            ttl = seconds
        }
        var channels: ChannelKeyPattern?
        if let channelsText {
            do throws(AccordError) {
                channels = try ChannelKeyPattern(validating: channelsText)
            } catch {
                throw AccordCommand.usageError("--channels is not a channel pattern: \(error.message)", help: "accord token --help")
            }
        }
        var email: EmailAddress?
        if let emailText {
            do throws(AccordError) {
                email = try EmailAddress(validating: emailText)
            } catch {
                throw AccordCommand.usageError("--email is not an email address: \(error.message)", help: "accord token --help")
            }
        }
        let authority = try TokenAuthority(secret: ServerSecret.load(secretFile: secretFile))
        Output.print(authority.mint(subject: subject, ttl: Double(ttl), channels: channels, admin: admin, email: email))
    }
}
