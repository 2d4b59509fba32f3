import Kura
import Testing

/// `StoreOptions` holds what every engine honours and each engine's own
/// options by type; LMDB's are `options.lmdb`, with shorthands.
@Suite struct StoreOptionsTests {
    struct OtherEngineOptions: EngineOptions {
        var poolSize = 4
    }

    @Test func eachEnginesOptionsAreItsDefaultsUntilSetAndApartFromOthers() {
        var options = StoreOptions()
        #expect(options.lmdb == LMDBOptions())
        #expect(options[engine: OtherEngineOptions.self].poolSize == 4)
        options[engine: OtherEngineOptions.self].poolSize = 9
        options.lmdb.maximumSize = 1 << 30
        #expect(options[engine: OtherEngineOptions.self].poolSize == 9)
        #expect(options.lmdb.maximumSize == 1 << 30)
        #expect(options.lmdb.initialSize == LMDBOptions().initialSize)
    }

    @Test func theShorthandsAreLMDBsOptions() {
        var options = StoreOptions()
        options.maximumSize = 1 << 31
        options.durability = .noMetaSync
        options.allowsReadingWithoutLock = true
        options.maxReaders = 7
        options.initialSize = 1 << 21
        var expected = LMDBOptions()
        expected.maximumSize = 1 << 31
        expected.durability = .noMetaSync
        expected.allowsReadingWithoutLock = true
        expected.maxReaders = 7
        expected.initialSize = 1 << 21
        #expect(options.lmdb == expected)
    }

    @Test func optionsCompareWithTheirEnginesOptions() {
        var changed = StoreOptions()
        changed.lmdb.durability = .noSync
        #expect(changed != StoreOptions())
        #expect(Set([changed, StoreOptions(), changed]).count == 2)
        // Set back to the defaults: the same options as never set.
        var back = changed
        back.lmdb.durability = .full
        #expect(back == StoreOptions())
    }
}
