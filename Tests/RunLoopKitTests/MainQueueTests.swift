import Foundation
import Testing

/// The main loop serves libdispatch's main queue (insight.h): a program
/// whose main thread runs `Loop.main` gets `DispatchQueue.main.async`
/// blocks and `@MainActor` tasks run on that loop.
@Suite struct MainQueueTests {
    @Test func dispatchMainQueueAndMainActorRunOnTheMainLoop() throws {
        let probe = URL(fileURLWithPath: CommandLine.arguments[0])
            .deletingLastPathComponent().appendingPathComponent("MainQueueProbe")
        let binary = FileManager.default.fileExists(atPath: probe.path)
            ? probe
            : URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
                .deletingLastPathComponent().appendingPathComponent(".build/debug/MainQueueProbe")
        let process = Process()
        process.executableURL = binary
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        process.waitUntilExit()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(process.terminationStatus == 0)
        #expect(text.split(separator: "\n").map(String.init) == [
            "DispatchQueue.main.async ran on the main loop: true",
            "@MainActor task ran on the main loop: true",
            "run ended: Stopped",
        ])
    }
}
