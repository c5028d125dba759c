//! `mf mcp`: serve the knowledge base and the proof cursor as MCP tools over stdio (see
//! [`crate::mcp`]). Claude Code starts it from the plugin's `.mcp.json`.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Result;

#[derive(clap::Args)]
pub struct McpArgs {
    /// knowledge.db (default: the same rule as mk: $MATH_FORGE_DB, the nearest .math-forge/ from $CLAUDE_PROJECT_DIR up, $XDG_DATA_HOME/math-forge, …)
    #[arg(long, value_name = "PATH")]
    db: Option<PathBuf>,
    /// tracking.db (default: $MATH_FORGE_TRACKING_DB, $CLAUDE_PROJECT_DIR/submissions/tracking.db)
    #[arg(long, value_name = "PATH")]
    tracking: Option<PathBuf>,
}

pub fn run(args: McpArgs) -> Result<ExitCode> {
    crate::mcp::serve_stdio(crate::mcp::Context {
        db: args.db,
        tracking: args.tracking,
        project: None,
    })?;
    Ok(ExitCode::SUCCESS)
}
