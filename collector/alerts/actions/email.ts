import type { Action, Alert, StringMap } from "../../../src/alerts/model.ts";
import { type ActionPlugin, positiveInt, propertyFor } from "../../../src/alerts/actions/plugin.ts";
import { fillTemplate, headline, templateValues } from "../../../src/alerts/actions/template.ts";

export interface EmailOptions {
  /** SMTP server used when an action does not name one (`mail.smtp.host`, `mail.smtp.port`). */
  smtpHost?: string;
  smtpPort?: number;
}

const ADDRESS = /^[^\s@,]+@[^\s@,]+$/;

function addresses(s: string | undefined): string[] {
  return (s ?? "")
    .split(",")
    .map((a) => a.trim())
    .filter((a) => a.length > 0);
}

function plainBody(v: Record<string, string>): string {
  const lines = [
    v.eventType === "ALERT" ? `Alert ${v.id} is ${v.status} (severity ${v.severity}).` : `Event ${v.id} (${v.category}).`,
    "",
    v.text,
    "",
    `Trigger: ${v.triggerName}${v.triggerDescription ? ` (${v.triggerDescription})` : ""}`,
    `Time: ${v.ctime}`,
    `Tenant: ${v.tenantId}`,
  ];
  if (v.url) lines.push(`More: ${v.url}`);
  return `${lines.join("\n")}\n`;
}

/**
 * Sends the alert or event by SMTP (upstream's email plugin). Every address property may have a
 * per-status variant (`to.RESOLVED`); `template.plain` and `template.html` replace the built-in
 * text and may use `${id}`, `${status}`, `${severity}`, `${text}`, `${triggerName}`, `${ctime}`...
 */
export function emailPlugin(opts: EmailOptions = {}): ActionPlugin {
  return {
    name: "email",
    properties: ["mail", "from", "from-name", "to", "cc", "template.hawkular.url", "template.locale", "template.plain", "template.html"],
    check(p: StringMap) {
      const problems: string[] = [];
      for (const [k, v] of Object.entries(p)) {
        const isAddressList = k === "to" || k.startsWith("to.") || k === "cc" || k.startsWith("cc.");
        const isSender = k === "from" || k.startsWith("from.");
        if ((isAddressList || isSender) && addresses(v).some((a) => !ADDRESS.test(a))) problems.push(`${k} must hold e-mail addresses`);
      }
      if (addresses(p.to).length === 0 && !Object.keys(p).some((k) => k.startsWith("to."))) problems.push("to must name at least one recipient");
      if (p["mail.smtp.port"] !== undefined && positiveInt(p["mail.smtp.port"], 25) === undefined) problems.push("mail.smtp.port must be a port number");
      return problems;
    },
    async run(action: Action) {
      const p = action.properties ?? {};
      const status = (action.event as Partial<Alert> | undefined)?.status;
      const to = addresses(propertyFor(p, "to", status));
      if (to.length === 0) throw new Error("no recipient");
      const values = templateValues(action, propertyFor(p, "template.hawkular.url", status));
      const plain = propertyFor(p, "template.plain", status);
      const html = propertyFor(p, "template.html", status);
      // Loaded at the first mail, not at start: its modules cost an idle collector about 6 MB (issue 28).
      const { default: nodemailer } = await import("nodemailer");
      const transport = nodemailer.createTransport({
        host: p["mail.smtp.host"] || opts.smtpHost || "localhost",
        port: Number(p["mail.smtp.port"] || opts.smtpPort || 25),
        secure: false,
        connectionTimeout: 10_000,
        greetingTimeout: 10_000,
        socketTimeout: 30_000,
      });
      try {
        const fromName = propertyFor(p, "from-name", status) ?? "Outpost";
        const from = propertyFor(p, "from", status) ?? "noreply@outpost.local";
        await transport.sendMail({
          from: { name: fromName, address: from },
          to,
          cc: addresses(propertyFor(p, "cc", status)),
          subject: headline(values),
          text: plain ? fillTemplate(plain, values) : plainBody(values),
          ...(html ? { html: fillTemplate(html, values) } : {}),
        });
      } finally {
        transport.close();
      }
    },
  };
}
