//! `mf mcp`: the knowledge base and the proof cursor as MCP tools, over stdio.
//!
//! The protocol is the `rmcp` crate's; the tools ([`tools`]) call the library functions the
//! CLI calls. As the specification (2025-11-25, "Error Handling" of Tools) says: an unknown
//! tool is a protocol error (`-32602`); arguments the tool's input schema forbids are refused
//! before anything runs, as a tool execution error (`isError: true`, one line the model reads
//! and can correct; a client that negotiated an older revision, where invalid arguments were a
//! protocol error, gets `-32602`); a tool that fails answers `isError: true` too.

pub mod tools;

use std::sync::Arc;

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, Implementation,
    ListToolsResult, PaginatedRequestParams, ServerCapabilities, ServerConfig, Tool,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer, ServerHandler, ServiceExt};

pub use tools::Context;

/// The server: stateless apart from where the databases are.
#[derive(Debug, Clone)]
pub struct Server {
    ctx: Arc<Context>,
}

impl Server {
    pub fn new(ctx: Context) -> Server {
        Server { ctx: Arc::new(ctx) }
    }
}

const INSTRUCTIONS: &str = "math-forge: the knowledge base of earlier Lean proof attempts (search, problem, failed, recommend, record_failure) and the proof cursor (holes, outline, splice). Check `failed` before trying an approach; fill holes one at a time with `splice`.";

impl ServerHandler for Server {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(Implementation::new("math-forge", env!("CARGO_PKG_VERSION")))
            .with_instructions(INSTRUCTIONS)
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        let tools = tools::specs()
            .into_iter()
            .map(|s| {
                let schema = match s.schema {
                    serde_json::Value::Object(m) => m,
                    _ => serde_json::Map::new(),
                };
                Tool::new(s.name, s.description, Arc::new(schema))
            })
            .collect();
        Ok(ListToolsResult::with_all_items(tools))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let ctx = Arc::clone(&self.ctx);
        let name = request.name.to_string();
        let args = request.arguments.unwrap_or_default();
        if !tools::specs().iter().any(|s| s.name == name) {
            return Err(ErrorData::invalid_params(
                format!("Unknown tool: {name}"),
                None,
            ));
        }
        if let Err(message) = tools::validate(&name, &args) {
            let older = context
                .peer
                .peer_info()
                .is_some_and(|i| i.protocol_version.as_str() < "2025-11-25");
            if older {
                return Err(ErrorData::invalid_params(message, None));
            }
            return Ok(CallToolResult::error(vec![ContentBlock::text(message)]).into());
        }
        // The work is synchronous (SQLite, parsing): off the protocol's thread.
        let outcome = tokio::task::spawn_blocking(move || tools::call(&name, &args, &ctx))
            .await
            .unwrap_or_else(|e| Err(format!("internal error: {e}")));
        let result = match outcome {
            Ok(value) => CallToolResult::structured(value),
            Err(message) => CallToolResult::error(vec![ContentBlock::text(message)]),
        };
        Ok(result.into())
    }
}

/// Serves MCP on stdin/stdout until the client closes the connection.
pub fn serve_stdio(ctx: Context) -> anyhow::Result<()> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_io()
        .enable_time()
        .build()?;
    runtime.block_on(async move {
        let service = Server::new(ctx)
            .serve(rmcp::transport::stdio())
            .await
            .map_err(|e| anyhow::anyhow!("MCP initialization failed: {e}"))?;
        service
            .waiting()
            .await
            .map_err(|e| anyhow::anyhow!("MCP service stopped: {e}"))?;
        Ok(())
    })
}
