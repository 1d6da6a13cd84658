import SpeakCLI
import Testing

@Suite("start-up threads only with a spare core")
struct SpareCoreTests {
    @Test(
        "the runnable count in /proc/loadavg decides",
        arguments: [
            ("0.04 0.02 0.00 1/123 4567\n", 2, true),  // only speak itself runs
            ("1.00 0.98 0.70 2/130 4567\n", 2, false),  // one other program holds one of two cores
            ("1.00 0.98 0.70 2/130 4567\n", 4, true),
            ("3.10 2.00 1.00 5/130 4567\n", 4, false),
            ("garbage", 2, true),  // unreadable: no reason not to overlap
            ("", 2, true),
        ])
    func decides(line: String, cores: Int, spare: Bool) {
        #expect(SpeakCommand.hasSpareCore(loadAverage: Array(line.utf8), cores: cores) == spare)
    }
}
