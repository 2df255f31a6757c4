import Foundation

// `accord-bench`: see BenchCommand.swift for the verbs and options.
exit(BenchCommand.run(Array(CommandLine.arguments.dropFirst())))
