// Unit cases for src/extract: every distractor class, every supported language, code formats,
// link choice, HTML entities, and pathological inputs that must finish quickly.
import test from 'ava';
import { extract, type ExtractInput, type Extraction } from '../../src/extract/index.js';
import { decodeEntities } from '../../src/extract/entities.js';
import { htmlToText } from '../../src/extract/html-to-text.js';

const html = (body: string): string => `<!DOCTYPE html><html><head><style>td{padding:0}</style><title>Mail</title></head><body>${body}</body></html>`;

interface Case {
  title: string;
  input: ExtractInput;
  otp: string | null;
  link: string | null;
}

const V = 'https://id.acme.example/verify?token=Zk29fJq0LmP4xR7tW1yB';
const UNSUB = 'https://news.acme.example/unsubscribe?u=8f2a9c7e1b4d6f30a5c2';
const FOOTER = `<p style="font-size:11px">Acme Inc., 1600 Harbor Blvd, Suite 400, San Francisco, CA 94107 &middot; &copy; 2025 Acme</p>
<p><a href="${UNSUB}">Unsubscribe</a> &middot; <a href="https://acme.example/privacy?ref=mail8f2a9c7e1b">Privacy policy</a>
<a href="https://twitter.example/acme?s=8f2a9c7e1b4d"><img src="https://cdn.acme.example/twitter.png" alt="Twitter"></a>
<a href="https://acme.example/?utm=8f2a9c7e1b4d6f"><img src="https://cdn.acme.example/logo.png" alt="Acme"></a></p>
<img src="https://t.acme.example/open.gif?id=8f2a9c7e1b4d6f30a5c2" width="1" height="1" alt="">`;

const distractors: Case[] = [
  // Years
  { title: 'years are not codes (copyright, since, in)', otp: null, link: null, input: { subject: 'Security update', text: 'We updated our security settings in 2024. You can now use a code to sign in.\n\n© 2025 Acme Inc. Serving customers since 1998.' } },
  { title: 'a code wins over the year in the footer', otp: '582913', link: null, input: { subject: 'Your Acme code', text: 'Your code is 582913.\n\n© 2025 Acme Inc.' } },
  // Prices
  { title: 'prices are not codes', otp: '730155', link: null, input: { subject: 'Confirm your purchase', text: 'Total: $1,249.00 (incl. € 49,99 shipping). Price 4999 EUR, or 1299 €, or ¥12800, or R$ 1.234,56.\nEnter code 730155 to approve the payment of $2450.' } },
  { title: 'a receipt with only prices has no code', otp: null, link: null, input: { subject: 'Your receipt', text: 'Subtotal: 1299 €\nShipping: 4999 円\nTotal: USD 5200\nThanks for shopping.' } },
  // Dates and times
  { title: 'dates are not codes', otp: null, link: null, input: { subject: 'Appointment code reminder', text: 'Your appointment is on 12/05/2025, also written 2025-05-12, 12.05.2025, May 12, 2025, 12 May 2025 and 2025年5月12日.' } },
  { title: 'times are not codes', otp: '604218', link: null, input: { subject: 'Sign-in code', text: 'Sent at 14:32 (2:05 PM), office hours 09:00–17:00.\nYour sign-in code: 604218' } },
  // Phone numbers
  { title: 'phone numbers are not codes', otp: null, link: null, input: { subject: 'We could not verify your code', text: 'Please call +1 (415) 555-0199, 1-800-555-0199, 0800 123 4567, +49 30 12345678 or 020 7946 0958.' } },
  { title: 'a code wins over phone numbers', otp: '3391', link: null, input: { text: 'Your PIN is 3391. Questions? Call 1-800-555-0199 or +44 20 7946 0958.' } },
  // Order, account, invoice, ZIP
  { title: 'order numbers are not codes', otp: null, link: null, input: { subject: 'Order #482913 confirmed', text: 'Order number: 482913\nOrder No. 482914\nYour order 482915 ships soon. Keep your confirmation code handy.' } },
  { title: 'account, card and invoice numbers are not codes', otp: null, link: null, input: { subject: 'Statement', text: 'Account ending in 4821. Card ****4821. Acct XXXX-7730.\nInvoice INV-482913, customer number 558120.' } },
  { title: 'ZIP and postal codes are not codes', otp: null, link: null, input: { subject: 'Your verification code', text: 'We mailed your code to: 12 Main St, Springfield, IL 62704.\nParis office: 8 rue de Rivoli, 75008 Paris.\nBerlin: 10115 Berlin. Moscow: 125009, Москва.' } },
  { title: 'a code next to an order number', otp: '852001', link: null, input: { subject: 'Confirm your email (order 609554)', text: 'Before we ship order 609554, confirm your email.\nConfirmation code: 852001' } },
  { title: 'ticket and booking numbers are not codes', otp: null, link: null, input: { subject: '[#557318] Request received', text: 'Your ticket number is 557318. Booking reference: 280215. Case 771203.' } },
  // Links that are never the verification link
  { title: 'tracking pixels, logos, social, privacy and unsubscribe links are skipped', otp: null, link: V, input: { subject: 'Verify your email', html: html(`<a href="https://acme.example/?c=9f8e7d6c5b4a"><img src="https://cdn.acme.example/logo.png" alt="Acme logo"></a><h1>Verify your email</h1><p><a href="${V}">Verify email</a></p>${FOOTER}`) } },
  { title: 'a newsletter with only footer links has no verification link', otp: null, link: null, input: { subject: 'This week at Acme', html: html(`<h1>Release notes 4.2</h1><p><a href="https://blog.acme.example/p/8f2a9c7e1b4d">Read more</a></p>${FOOTER}`) } },
  { title: 'view-in-browser and manage-preferences links are skipped', otp: null, link: null, input: { subject: 'Confirm your seat', html: html(`<a href="https://acme.example/view?id=8f2a9c7e1b4d">View in browser</a><p><a href="https://acme.example/prefs?u=8f2a9c7e1b4d">Manage preferences</a></p>`) } },
  { title: 'a "wasn\'t you? reset your password" link is not the verification link', otp: '343583', link: null, input: { subject: 'Your sign-in code', html: html(`<p>Use this code to sign in:</p><p style="font-size:28px"><b>343 583</b></p><p>Didn't try to sign in? <a href="https://acme.example/reset?t=8f2a9c7e1b4d">Reset your password</a></p>`) } },
  { title: 'a deny link is not the verification link', otp: null, link: 'https://id.acme.example/approve?req=9a8b7c6d5e4f3a2b1c0d', input: { subject: 'Approve new sign-in', html: html(`<p>Someone wants to sign in.</p><p><a href="https://id.acme.example/deny?req=1a2b3c4d5e6f7a8b9c0d">Deny, this wasn't me</a></p><p><a href="https://id.acme.example/approve?req=9a8b7c6d5e4f3a2b1c0d">Approve sign-in</a></p>`) } },
  { title: 'a plain login link in a welcome mail is not a verification link', otp: null, link: null, input: { subject: 'Welcome to Acme', text: 'Your email is verified and your account is ready.\nLog in: https://app.acme.example/login\nGo to dashboard: https://app.acme.example/dashboard' } },
  { title: 'track-order and pay-invoice links are not verification links', otp: null, link: null, input: { subject: 'Your order shipped', text: 'Track order: https://shop.acme.example/track/8f2a9c7e1b4d\nPay invoice: https://pay.acme.example/i/8f2a9c7e1b4d' } },
];

const languages: Case[] = [
  { title: 'English code', otp: '482913', link: null, input: { subject: 'Your Acme verification code', text: 'Hi Sam,\n\nYour verification code is 482913. It expires in 10 minutes.\n\nOrder 771203 is unaffected.' } },
  { title: 'German code', otp: '127239', link: null, input: { subject: 'Ihr Bestätigungscode', text: 'Hallo,\n\nIhr Bestätigungscode lautet: 127239\nEr ist 10 Minuten gültig. Bestellnummer 448213, Kundennummer 558120.\n\nMusterfirma GmbH, Hauptstraße 5, 10115 Berlin' } },
  { title: 'German link', otp: null, link: 'https://konto.muster.example/aktivieren?t=Qm93ZXJ0Yk2hNjU4', input: { subject: 'Bitte bestätigen Sie Ihre E-Mail-Adresse', html: html('<p>Bitte bestätigen Sie Ihre E-Mail-Adresse.</p><p><a href="https://konto.muster.example/aktivieren?t=Qm93ZXJ0Yk2hNjU4">Konto aktivieren</a></p><p><a href="https://muster.example/datenschutz?x=8f2a9c7e1b4d">Datenschutz</a> | <a href="https://muster.example/abmelden?u=8f2a9c7e1b4d">Abmelden</a></p>') } },
  { title: 'French code', otp: '818066', link: null, input: { subject: 'Votre code de connexion', text: 'Bonjour,\n\nVoici votre code de vérification : 818 066\n\nCommande n° 123456. Appel gratuit : 0 800 55 50 12.' } },
  { title: 'French link', otp: null, link: 'https://compte.exemple.example/confirmer?jeton=a8Hk2mP9qW3x', input: { subject: 'Confirmez votre adresse e-mail', text: 'Bonjour,\n\nCliquez sur le lien ci-dessous pour confirmer votre adresse :\nhttps://compte.exemple.example/confirmer?jeton=a8Hk2mP9qW3x\n\nSe désabonner : https://exemple.example/desabonner?u=8f2a9c7e1b4d' } },
  { title: 'Spanish code', otp: '5499', link: null, input: { subject: 'Tu código de acceso', html: html('<p>¡Hola!</p><p>Tu código de verificación es <b>5499</b>.</p><p>Pedido 123456 · Teléfono 900 123 456</p>') } },
  { title: 'Spanish link', otp: null, link: 'https://cuenta.ejemplo.example/verificar?token=pUpZhnJ7lJ5b', input: { subject: 'Verifica tu correo', html: html('<p>Verifica tu correo electrónico:</p><p><a href="https://cuenta.ejemplo.example/verificar?token=pUpZhnJ7lJ5b">Verificar correo</a></p><p><a href="https://ejemplo.example/baja?u=8f2a9c7e1b4d">Darse de baja</a></p>') } },
  { title: 'Portuguese code', otp: '689265', link: null, input: { subject: 'Código de verificação', text: 'Olá,\n\nO seu código de verificação é 689265.\n\nNIF 509 482 771 · CEP 01310-100 · Pedido 445566' } },
  { title: 'Portuguese link', otp: null, link: 'https://conta.exemplo.example/confirmar?token=sY9ZM6U571Wd', input: { subject: 'Confirme seu e-mail', html: html('<p>Confirme seu e-mail para concluir o cadastro:</p><p><a href="https://conta.exemplo.example/confirmar?token=sY9ZM6U571Wd">Confirmar e-mail</a></p>') } },
  { title: 'Japanese code', otp: '220205', link: null, input: { subject: '確認コードのお知らせ', text: 'いつもご利用ありがとうございます。\n\n確認コード：２２０２０５\n\nこのコードの有効期限は15分です。\n注文番号：123456\n合計金額：2,480円' } },
  { title: 'Japanese link', otp: null, link: 'https://account.sora.example/verify?token=nt1JKXq3A1Lf', input: { subject: 'メールアドレスの確認', text: '以下のリンクをクリックして、メールアドレスを確認してください。\nhttps://account.sora.example/verify?token=nt1JKXq3A1Lf\n\n※リンクの有効期限は24時間です。' } },
  { title: 'Chinese code', otp: '297116', link: null, input: { subject: '【星桥】验证码', text: '您好：\n\n您的验证码为 297116，请于5分钟内输入。\n订单号：123456\n客服热线：400-123-4567' } },
  { title: 'Chinese link', otp: null, link: 'https://passport.xq.example/activate?uid=5087&code=7b5f4ac13bb9', input: { subject: '账号激活', text: '您好！\n\n请点击以下链接激活您的账号：\nhttps://passport.xq.example/activate?uid=5087&code=7b5f4ac13bb9\n\n链接24小时内有效。' } },
  { title: 'Russian code', otp: '246879', link: null, input: { subject: 'Код для входа', text: 'Здравствуйте!\n\nКод для входа: 246879\nНикому не сообщайте этот код.\n\nАО «Банк», 125009, Москва, ул. Тверская, 7. Заказ 445566.' } },
  { title: 'Russian link', otp: null, link: 'https://lk.bank.example/confirm?key=gqYjnurtsFt1', input: { subject: 'Подтверждение адреса', text: 'Подтвердите адрес электронной почты по ссылке:\nhttps://lk.bank.example/confirm?key=gqYjnurtsFt1\n\nОтписаться: https://bank.example/unsub?u=8f2a9c7e1b4d' } },
];

const formats: Case[] = [
  { title: 'code with a space separator', otp: '482913', link: null, input: { text: 'Your code: 482 913' } },
  { title: 'code with a hyphen separator', otp: '482913', link: null, input: { text: 'Your code: 482-913' } },
  { title: 'code with a spaced dash separator', otp: '482913', link: null, input: { text: 'Your code: 482 – 913\nValid 10 - 15 minutes.' } },
  { title: 'code with &nbsp; separator', otp: '482913', link: null, input: { html: html('<p>Your code:</p><p>482&nbsp;913</p>') } },
  { title: 'letter-spaced code', otp: '472252', link: null, input: { text: 'Here is your code: 4 7 2 2 5 2\nValid for 10 minutes.' } },
  { title: 'code with zero-width spaces', otp: '465704', link: null, input: { html: html('<p>Your code:</p><p>4&#x200B;6&#8203;5&zwnj;7&#x200B;0&#x200B;4</p>') } },
  { title: 'code split one digit per table cell', otp: '920648', link: null, input: { subject: 'Security code', html: html('<p>Enter this code to approve the new device:</p><table><tr>' + [...'920648'].map((d) => `<td style="font-size:28px;font-weight:700">${d}</td><td style="width:8px"></td>`).join('') + '</tr></table>') } },
  { title: 'code split one digit per block element', otp: '310574', link: null, input: { subject: 'Your login code', html: html('<p>Your login code</p><div>' + [...'310574'].map((d) => `<div style="display:inline-block;font-size:24px">${d}</div>`).join('') + '</div>') } },
  { title: 'code split one digit per span', otp: '472252', link: null, input: { html: html('<p>Here is your code:</p><p>' + [...'472252'].map((d) => `<span>${d}</span>`).join('') + '</p>') } },
  { title: 'code alone in a big bold cell', otp: '0427', link: null, input: { subject: 'Your one-time passcode', html: html('<p>Hi Sam,</p><table><tr><td style="font-size:36px;font-weight:bold;letter-spacing:6px">0427</td></tr></table><p>Ticket 5521 · Room 4410</p>') } },
  { title: 'code in Markdown bold', otp: '482913', link: null, input: { text: 'Your login code: **482913**\nCard **4821 is not affected.' } },
  { title: 'code with a leading zero', otp: '014755', link: null, input: { text: 'Your verification code: 014755' } },
  { title: 'code with a letter prefix', otp: '823198', link: null, input: { text: 'G-823198 is your verification code.' } },
  { title: 'code before its keyword', otp: '8229', link: null, input: { text: '8229 is your Hopride verification code. It expires in 2 minutes.\n\nHopride Inc., 1725 3rd St, San Francisco, CA 94158' } },
  { title: 'code in the subject only', otp: '815152', link: null, input: { subject: 'Packlane code: 815152', text: 'Hi,\n\nThe code you need is in the subject line.' } },
  { title: 'code in the subject with a confirm link in the body', otp: '33356', link: 'https://tickets.stage.example/confirm?c=UjS6Dcg0G7fo', input: { subject: 'StagePass code 33356', text: 'Enter the code from the subject line in the app, or confirm here:\nhttps://tickets.stage.example/confirm?c=UjS6Dcg0G7fo' } },
  { title: 'digits inside a URL are not a code', otp: null, link: 'https://auth.tide.example/confirm?user=c09c08ed-944a&code=665266', input: { subject: 'Confirm your account', text: 'Click here to confirm your account:\nhttps://auth.tide.example/confirm?user=c09c08ed-944a&code=665266' } },
  { title: 'alphanumeric codes are not returned', otp: null, link: null, input: { subject: 'Log in', text: 'Type this code on the login page:\n\nW7QK-MZ4R\n\nMeeting ID: 291 882 104 55, Passcode: Xq3vP9' } },
  { title: 'a notice that mentions a code without one', otp: null, link: null, input: { subject: 'Two-step verification turned off', text: 'Two-step verification was turned off on 12 May 2025.\nYou will no longer be asked for a 6-digit code.' } },
];

const links: Case[] = [
  { title: 'link-only mail (magic link)', otp: null, link: 'https://app.mosaic.example/auth/magic?email=qa%40example.test&token=b63c21ee4cf0', input: { subject: 'Your sign-in link', html: html('<h1>Sign in to Mosaic</h1><p><a href="https://app.mosaic.example/auth/magic?email=qa%40example.test&amp;token=b63c21ee4cf0">Sign in</a></p><p><a href="https://help.mosaic.example/a/8f2a9c7e1b4d">Help</a></p>') } },
  { title: 'reset link with an "ignore this" disclaimer', otp: null, link: 'https://id.ocean.example/reset_password?token=VtfzvemJmQc9', input: { subject: 'Reset your password', text: 'If you did not request this, ignore this email. Otherwise, to reset your password, visit https://id.ocean.example/reset_password?token=VtfzvemJmQc9.\nThe link expires in 1 hour.' } },
  { title: 'text link in angle brackets', otp: null, link: 'https://forum.retro.example/users/activate/73609/bdcd6ba88991', input: { text: 'Activate your account:\n<https://forum.retro.example/users/activate/73609/bdcd6ba88991>\n\nForum rules: <https://forum.retro.example/faq?x=8f2a9c7e1b4d>' } },
  { title: 'text link in parentheses', otp: null, link: 'https://x.acme.example/confirm?t=abc123def456', input: { text: 'Confirm your email (https://x.acme.example/confirm?t=abc123def456).' } },
  { title: 'image button with alt text', otp: null, link: 'https://x.acme.example/activate?k=abc123def456', input: { subject: 'Welcome', html: html('<p>One more step.</p><a href="https://x.acme.example/activate?k=abc123def456"><img src="https://cdn.acme.example/btn.png" alt="Activate my account"></a>') } },
  { title: 'neither a code nor a link', otp: null, link: null, input: { subject: 'Your parcel is on its way', text: 'Tracking: 9400 1118 9922 3470 0506 18\nExpected: Tue, May 20 by 8:00 PM\nTrack: https://parcel.example/track/9400111899223470050618' } },
  { title: 'empty input', otp: null, link: null, input: {} },
  { title: 'null fields', otp: null, link: null, input: { subject: null, text: null, html: null } },
];

const entityCases: Case[] = [
  { title: 'numeric character references in the code', otp: '482913', link: null, input: { html: html('<p>Your code is <b>&#52;&#56;&#50;&#x39;&#x31;&#51;</b></p>') } },
  { title: 'character references in href', otp: null, link: 'https://club.lib.example/card/activate?card=21982004&pin_setup=1&k=RMuXh0dONqDL', input: { html: html('<p><a href="https://club.lib.example/card/activate?card&#x3D;21982004&#38;pin_setup&#x3D;1&amp;k&#61;RMuXh0dONqDL">Activate your online account</a></p>') } },
];

const TRACKED = 'https://click.bank.example/?qs=8f2a9c7e1b4d6f30a5c2e9d8b7a6';
const context: Case[] = [
  { title: 'a keyword labels the nearest number: PIN after a labelled card number', otp: '7734', link: null, input: { text: 'Your PIN for card ending 4821 is 7734.' } },
  { title: 'an IBAN and amount between keyword and code do not hide the code', otp: '482913', link: null, input: { subject: 'Ihre TAN', text: 'Ihre TAN für die Überweisung an DE89 3704 0044 0532 0130 00 über 1.250,00 EUR lautet: 482913' } },
  { title: 'a transaction amount between keyword and code does not hide the code', otp: '482913', link: null, input: { text: 'Your OTP for transaction of INR 5,000.00 at AMAZON is 482913. Valid for 3 mins. Card XX4821.' } },
  { title: 'the code label may sit two lines above', otp: '482913', link: null, input: { subject: 'Sign in', text: 'Your verification code\nUse it within 10 minutes:\n\n482913\n' } },
  { title: 'booking and reservation codes are not one-time codes', otp: null, link: null, input: { subject: 'Your booking', text: 'Booking code: 482913\nReservation code 482914' } },
  { title: 'meeting passcodes are not one-time codes', otp: null, link: null, input: { subject: 'Invitation: Sync', text: 'Join Zoom Meeting\nMeeting ID: 812 3456 7890\nPasscode: 482913' } },
  { title: 'postal codes before a city are not codes', otp: null, link: null, input: { subject: 'Ihr Code', text: 'Der Code ist 10 Minuten gültig.\n22767 Hamburg\n\nКод действует 10 минут.\n125009, г. Москва' } },
  { title: 'a count before its noun is not a code', otp: null, link: null, input: { subject: 'Dev digest', text: 'This week: the code review tool now supports 1500 repos.' } },
  { title: 'a label on the line above names the number below', otp: null, link: null, input: { subject: 'Your confirmation code', text: 'Thanks!\nOrder number:\n\n482913\n' } },
  { title: 'a log-in button behind a click tracker in a statement mail is not a magic link', otp: null, link: null, input: { subject: 'Your statement is ready', html: html(`<p>Your May statement is available.</p><a href="${TRACKED}">Log in to view your statement</a>`) } },
  { title: 'a sign-in alert link is not a verification link', otp: null, link: null, input: { subject: 'New sign-in to your account', html: html('<p>New sign-in to your account from Chrome on Windows.</p><a href="https://acct.example/security?t=Ab12Cd34Ef56Gh78">Check activity</a>') } },
  { title: 'a sign-in button in a sign-in mail is a magic link', otp: null, link: 'https://app.example/e/Ab12Cd34Ef56Gh78', input: { subject: 'Your Acme login link', html: html('<p>Click below to log in to Acme.</p><a href="https://app.example/e/Ab12Cd34Ef56Gh78">Continue</a>') } },
  { title: 'an approve-sign-in button ("Yes, it was me") is the verification link', otp: null, link: 'https://id.x.example/approve?r=Ab12Cd34Ef56', input: { subject: 'New sign-in', html: html('<p>Was this you?</p><a href="https://id.x.example/approve?r=Ab12Cd34Ef56">Yes, it was me</a> <a href="https://id.x.example/deny?r=Zz98Yy76Xx54">No, secure my account</a>') } },
  { title: 'utm campaign values are not tokens', otp: null, link: null, input: { subject: 'Welcome aboard', text: 'Your account is now active.\nLog in here: https://app.example/login?utm_source=email&utm_campaign=welcome_2025' } },
  { title: 'Korean verification link', otp: null, link: 'https://k.example/verify?t=Ab12Cd34Ef56Gh78', input: { subject: '이메일 인증', html: html('<p>아래 버튼을 눌러 이메일 인증을 완료해 주세요.</p><a href="https://k.example/verify?t=Ab12Cd34Ef56Gh78">이메일 인증하기</a>') } },
  { title: 'code and link together in Spanish', otp: '552019', link: 'https://e.example/confirmar?t=Ab12Cd34Ef56Gh78', input: { subject: 'Confirma tu cuenta', html: html('<p>Tu código de confirmación es:</p><h2>552 019</h2><p>O haz clic en el botón:</p><a href="https://e.example/confirmar?t=Ab12Cd34Ef56Gh78">Confirmar cuenta</a>') } },
  { title: 'code in a cell next to its label, order number in the next row', otp: '719204', link: null, input: { html: html('<table><tr><td>Verification code</td><td><b>719204</b></td></tr><tr><td>Order</td><td>552100</td></tr></table>') } },
];

for (const c of [...distractors, ...languages, ...formats, ...links, ...entityCases, ...context]) {
  test(`extract - ${c.title}`, (t) => {
    t.deepEqual(extract(c.input), { otp: c.otp, verification_link: c.link });
  });
}

test('extract - entity decoding handles named, numeric, legacy and attribute rules', (t) => {
  t.is(decodeEntities('&#56;&#x38;&amp;&lt;&nbsp;&copy;&euro;&#128;&bogus;'), '88&<\u00A0©€€&bogus;');
  t.is(decodeEntities('a&ampb'), 'a&b');
  t.is(decodeEntities('?a=1&copy=2&amp;b=3', true), '?a=1&copy=2&b=3');
  t.is(decodeEntities('&#0;&#x110000;'), '\uFFFD\uFFFD');
});

test('extract - html reader keeps blocks, cells, emphasis and links', (t) => {
  const r = htmlToText('<p>Code:</p><table><tr><td><b>1</b></td><td>2</td></tr></table><a href="https://a.example/x?a=1&amp;b=2">Go <i>now</i></a><script>var x = "<p>9999</p>";</script>');
  t.is(r.text, 'Code:\n1 2\nGo now');
  t.deepEqual(r.emphasis, [6, 7]);
  t.is(r.links.length, 1);
  t.is(r.links[0]!.href, 'https://a.example/x?a=1&b=2');
  t.is(r.text.slice(r.links[0]!.start, r.links[0]!.end), 'Go now');
});

// Pathological inputs: the extractor examines a bounded prefix of each part, so these must return
// quickly. Times are logged, not asserted (CI machines vary). Inputs are flattened first (a
// `repeat()` result is a rope V8 flattens on first scan, which is the caller's cost, not ours),
// and both the first call and a warm call are logged; the first calls warm the JIT generally.
const warm = (): void => {
  for (let i = 0; i < 5; i++) for (const c of [...languages, ...formats]) extract(c.input);
};
const timed = (t: { log: (...v: unknown[]) => void }, label: string, input: ExtractInput): Extraction => {
  for (const part of [input.subject, input.text, input.html]) part?.indexOf('\0');
  const t0 = performance.now();
  const r = extract(input);
  const first = performance.now() - t0;
  const t1 = performance.now();
  extract(input);
  const again = performance.now() - t1;
  const mb = ((input.html ?? input.text ?? '').length / 1e6).toFixed(1);
  t.log(`${label} (${mb} MB): first call ${first.toFixed(1)} ms, warm ${again.toFixed(1)} ms`);
  return r;
};

test('extract - 10 MB of nested <div> completes', (t) => {
  warm();
  const r = timed(t, '10 MB <div> nesting', { html: '<div>'.repeat(2_000_000) + 'Your code is 123456' + '</div>'.repeat(100) });
  t.deepEqual(r, { otp: null, verification_link: null });
});

test('extract - 5 MB of &amp; completes', (t) => {
  warm();
  const r = timed(t, '5 MB &amp;', { html: '&amp;'.repeat(1_000_000) });
  t.deepEqual(r, { otp: null, verification_link: null });
});

test('extract - 10 MB of text with no code completes', (t) => {
  warm();
  const r = timed(t, '10 MB text', { subject: 'Newsletter', text: 'The quick brown fox jumps over the lazy dog 1999. '.repeat(200_000) });
  t.deepEqual(r, { otp: null, verification_link: null });
});

test('extract - other pathological shapes complete', (t) => {
  warm();
  const shapes: Record<string, ExtractInput> = {
    'lone < characters': { html: '<'.repeat(10_000_000) },
    'one huge tag': { html: '<div ' + 'a=b '.repeat(2_500_000) + '>' },
    'unterminated attribute': { html: '<a href="' + 'x'.repeat(10_000_000) },
    'unterminated comment': { html: '<!--' + 'x'.repeat(10_000_000) },
    'numeric entities': { html: '&#56;'.repeat(2_000_000) },
    'digit groups': { text: '1234 '.repeat(2_000_000) },
    'code words and numbers': { text: 'code 1234 order 5678 '.repeat(500_000) },
    'many links': { html: '<a href="https://x.example/verify?token=abcdef1234567890">Verify</a>'.repeat(150_000) },
    'huge URL': { text: 'https://a.example/' + ')'.repeat(10_000_000) },
    'many @': { text: 'a@'.repeat(5_000_000) },
  };
  for (const [label, input] of Object.entries(shapes)) {
    const r = timed(t, label, input);
    t.true(r.otp === null || /^\d{4,6}$/.test(r.otp));
  }
});
