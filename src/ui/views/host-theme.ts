import { App, applyDocumentTheme, applyHostFonts, applyHostStyleVariables } from '@modelcontextprotocol/ext-apps';

type HostContext = NonNullable<ReturnType<App['getHostContext']>>;

/** The host's theme and CSS variables, now and whenever they change. */
export function followHostTheme(app: App): void {
  const apply = (context: Partial<HostContext> | undefined) => {
    if (context?.theme) applyDocumentTheme(context.theme);
    if (context?.styles?.variables) applyHostStyleVariables(context.styles.variables);
    if (context?.styles?.css?.fonts) applyHostFonts(context.styles.css.fonts);
  };
  apply(app.getHostContext());
  app.onhostcontextchanged = (changed) => apply(changed);
}
