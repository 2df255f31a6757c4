import Foundation

// `accord`: see Usage.swift for the commands, ExitStatus.swift for the exit statuses.
exit(AccordCommand.run(Array(CommandLine.arguments.dropFirst())))
