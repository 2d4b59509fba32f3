import NewsAPI
import NewsService

// news-service [--store PATH | --store postgres://…] [--host H] [--port P] [--threads N] [--log-level L]
await NewsApp.main(name: "news-service", defaultStore: "news-service.kura") { try await NewsServer.run($0) }
