import Foundation
import SpeakKit

/// A token bucket per key (a client's token name, or an address without tokens): `burst` requests
/// at once, refilled at `requestsPerMinute`. The buckets are spread over several locks by key, so
/// clients do not wait for one another, and none of them is the lock token lookups take.
public final class RateLimiter: Sendable {
    private struct Bucket {
        var tokens: Double
        var updated: Double
    }

    public let burst: Double
    /// Tokens added per second.
    private let refillRate: Double
    private struct Buckets {
        var byKey: [String: Bucket] = [:]
        /// The count at which the full buckets are next dropped: twice what the last sweep kept,
        /// so a stripe of many busy keys is not swept on every request.
        var sweepAt = RateLimiter.bucketsPerStripe
    }
    private final class Stripe: Sendable {
        let buckets = Locked(Buckets())
    }
    private let stripes: [Stripe]
    /// Buckets a stripe holds before it first drops the full ones. A full bucket is what a new key
    /// starts with, so dropping it changes no answer, and keys by address do not pile up without end.
    static let bucketsPerStripe = 1024

    public init(requestsPerMinute: Int, burst: Int) {
        precondition(requestsPerMinute > 0 && burst > 0, "rate limits must be positive")
        self.burst = Double(burst)
        refillRate = Double(requestsPerMinute) / 60
        stripes = (0..<16).map { _ in Stripe() }
    }

    /// Takes one request from `key`'s bucket. Nil when admitted; else the seconds until a request
    /// will be (round up for `Retry-After`). `now` is monotonic seconds.
    public func admit(_ key: String, now: Double = ProcessInfo.processInfo.systemUptime) -> Double? {
        let stripe = stripes[Int(UInt(bitPattern: key.hashValue) % UInt(stripes.count))]
        return stripe.buckets.withLock { buckets in
            var bucket = buckets.byKey[key] ?? Bucket(tokens: burst, updated: now)
            bucket.tokens = min(burst, bucket.tokens + max(0, now - bucket.updated) * refillRate)
            bucket.updated = now
            defer { buckets.byKey[key] = bucket }
            // A little slack, so a client that waited exactly the time it was told is admitted.
            guard bucket.tokens >= 1 - 1e-9 else { return (1 - bucket.tokens) / refillRate }
            bucket.tokens = max(0, bucket.tokens - 1)
            if buckets.byKey.count >= buckets.sweepAt {
                buckets.byKey = buckets.byKey.filter { $0.value.tokens + (now - $0.value.updated) * refillRate < burst }
                buckets.sweepAt = max(Self.bucketsPerStripe, 2 * buckets.byKey.count)
            }
            return nil
        }
    }

    /// How many buckets are held, full ones not yet dropped included.
    var bucketCount: Int { stripes.reduce(0) { $0 + $1.buckets.withLock(\.byKey.count) } }
}
