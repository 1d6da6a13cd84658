import Foundation
import SpeakKit

/// A token bucket per key (a client's token name): `burst` requests at once, refilled at
/// `requestsPerMinute`. The buckets are spread over several locks by key, so clients do not wait
/// for one another, and none of them is the lock token lookups take.
public final class RateLimiter: Sendable {
    private struct Bucket {
        var tokens: Double
        var updated: Double
    }

    public let burst: Double
    /// Tokens added per second.
    private let refillRate: Double
    private final class Stripe: Sendable {
        let buckets = Locked<[String: Bucket]>([:])
    }
    private let stripes: [Stripe]

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
            var bucket = buckets[key] ?? Bucket(tokens: burst, updated: now)
            bucket.tokens = min(burst, bucket.tokens + max(0, now - bucket.updated) * refillRate)
            bucket.updated = now
            defer { buckets[key] = bucket }
            // A little slack, so a client that waited exactly the time it was told is admitted.
            guard bucket.tokens >= 1 - 1e-9 else { return (1 - bucket.tokens) / refillRate }
            bucket.tokens = max(0, bucket.tokens - 1)
            return nil
        }
    }
}
