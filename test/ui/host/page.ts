// Runs in Chromium: a minimal MCP Apps host built on the ext-apps AppBridge. The view is sandboxed in an
// iframe as hosts do; its tool calls go to window.hostCallTool, which the test wires to a real MCP client.
import { AppBridge, PostMessageTransport } from '@modelcontextprotocol/ext-apps/app-bridge';

interface Start {
  html: string;
  args: Record<string, unknown>;
  result: Record<string, unknown>;
  hostContext: Record<string, unknown>;
}

declare global {
  interface Window {
    startHost(start: Start): Promise<void>;
    hostCallTool(params: unknown): Promise<Record<string, unknown>>;
  }
}

window.startHost = async ({ html, args, result, hostContext }) => {
  const iframe = document.getElementById('view') as HTMLIFrameElement;
  const bridge = new AppBridge(
    null,
    { name: 'org-analytics test host', version: '1.0.0' },
    { serverTools: {}, logging: {} },
    { hostContext },
  );
  bridge.oncalltool = (params) => window.hostCallTool(params) as never;
  const initialized = new Promise<void>((resolve) => (bridge.oninitialized = () => resolve()));
  // Listening before the view loads: it says hello as soon as its script runs.
  await bridge.connect(new PostMessageTransport(iframe.contentWindow!, iframe.contentWindow!));
  iframe.srcdoc = html;
  await initialized;
  await bridge.sendToolInput({ arguments: args });
  await bridge.sendToolResult(result as never);
};
