import Testing
@testable import AccordServer

@Suite struct DashboardSampleTests {
    @Test func theRingKeepsTheNewestInOrder() {
        var ring = SampleRing<Int>(capacity: 3)
        #expect(ring.elements.isEmpty && ring.last == nil)
        for value in 1...2 { ring.append(value) }
        #expect(ring.elements == [1, 2] && ring.last == 2)
        for value in 3...7 { ring.append(value) }
        #expect(ring.elements == [5, 6, 7] && ring.last == 7 && ring.count == 3)
    }

    @Test func aSampleCountsWhatHappenedDuringItsSecond() {
        var before = ServerMetrics.Snapshot(
            connections: 1, rooms: 1, messagesIn: 10, messagesOut: 20, bytesIn: 100, bytesOut: 200,
            errors: ["RATE_LIMITED": 2], persistCount: 4, queuedBytes: 0, peakConnectionQueuedBytes: 0, slowConsumerCloses: 0)
        before.persistBuckets = [4] + Array(repeating: 0, count: ServerMetrics.persistBounds.count - 1)
        var after = before
        after.connections = 3
        after.messagesIn = 15
        after.bytesOut = 260
        after.errors = ["RATE_LIMITED": 5, "DOC_ACCESS_DENIED": 1]
        after.limitRefusals = [.connectionsPerUser: 2]
        // 100 new acks: 98 within 1 ms, 1 within 10 ms, 1 within 250 ms.
        after.persistCount = 104
        after.persistBuckets[0] += 98
        after.persistBuckets[ServerMetrics.persistBounds.firstIndex(of: 10)!] += 1
        after.persistBuckets[ServerMetrics.persistBounds.firstIndex(of: 250)!] += 1
        let sample = DashboardSample.between(before, after, time: 5, sequence: 1, residentBytes: 7, openDescriptors: nil)
        #expect(sample.connections == 3 && sample.messagesIn == 5 && sample.messagesOut == 0 && sample.bytesOut == 60)
        #expect(sample.errors == ["RATE_LIMITED": 3, "DOC_ACCESS_DENIED": 1])
        #expect(sample.refusals == [ServerLimit.connectionsPerUser.metricLabel: 2])
        #expect(sample.ackP50 == 1 && sample.ackP99 == 10)
        #expect(sample.json.jsonText.contains("\"openDescriptors\":null"))
    }

    @Test func aSecondWithoutAcksHasNoPercentiles() {
        #expect(DashboardSample.percentile(0.5, of: [0, 0], total: 0) == nil)
        // Past the last bound: twice it, for "more than the histogram holds".
        let over = DashboardSample.percentile(0.99, of: Array(repeating: 0, count: ServerMetrics.persistBounds.count), total: 3)
        #expect(over == ServerMetrics.persistBounds.last! * 2)
    }
}
