import NewsAPI
import NewsServiceFluent

// news-service-fluent [--store PATH.sqlite | --store postgres://…] [--host H] [--port P] [--log-level L]
await NewsApp.main(name: "news-service-fluent", defaultStore: "news-service.sqlite") { try await FluentServer.run($0) }
