// Senders' styles the corpus does not have (device checks, magic links, approvals, double opt-in,
// safe-links, eight languages more) and negatives: extraction must generalise, not memorise.
import test from 'ava';
import { extract } from '../../src/extract/index.js';

type Case = [string, { subject?: string; text?: string; html?: string }, string | null, string | null];
const cases: Case[] = [
  ['github device', { subject: '[GitHub] Please verify your device', text: 'Hey user!\n\nA sign in attempt requires further verification because we did not recognize your device. To complete the sign in, enter the verification code on the unrecognized device.\n\nDevice: Chrome on Linux\nVerification code: 481516\n\nIf you did not attempt to sign in to your account, your password may be compromised. Visit https://github.com/settings/security to create a new, strong password for your GitHub account.\n\nThanks,\nThe GitHub Team' }, '481516', null],
  ['slack magic', { subject: 'Slack confirmation code: 482-913', html: '<p>Confirm your email address</p><p>Your confirmation code is below — enter it in your open browser window and we\'ll help you get signed in.</p><div style="font-size:30px">482-913</div><p>If you didn\'t request this email, there\'s nothing to worry about.</p><a href="https://slack.example/help">Help</a>' }, '482913', null],
  ['aws', { subject: 'AWS Email Verification', text: 'Hello,\n\nTo finish signing up, please use the following verification code:\n\nVerification code: 904112\n\nThis code expires 10 minutes after it was sent.\n\nAmazon Web Services, Inc. is a subsidiary of Amazon.com, Inc. 410 Terry Avenue North, Seattle, WA 98109-5210' }, '904112', null],
  ['ms security code', { subject: 'Microsoft account security code', text: 'Please use the following security code for the Microsoft account ab***@example.com.\n\nSecurity code: 7730\n\nIf you don\'t recognize the Microsoft account ab***@example.com, you can click https://account.live.example/dp?token=abcDEF123456ghiJKL to remove your email address from that account.\n\nThanks,\nThe Microsoft account team' }, '7730', null],
  ['google G-', { subject: 'G-552901 is your Google verification code', text: 'G-552901 is your Google verification code.' }, '552901', null],
  ['discord verify link', { subject: 'Verify Email Address for Discord', html: '<h2>Hey there,</h2><p>Thanks for registering for an account on Discord! Before we get started, we just need to confirm that this is you. Click below to verify your email address:</p><a href="https://click.discord.example/ls/click?upn=u001.aBcDeFgHiJkLmNoPqRsTuVwXyZ0123456789">Verify Email</a><p>Need help? <a href="https://support.discord.example">Contact our support team</a></p><a href="https://discord.example/unsubscribe?u=abc123XYZ789def">Unsubscribe</a>' }, null, 'https://click.discord.example/ls/click?upn=u001.aBcDeFgHiJkLmNoPqRsTuVwXyZ0123456789'],
  ['stripe receipt negative', { subject: 'Your receipt from Acme #1843-2291', text: 'Receipt #1843-2291\nAmount paid: $49.00\nDate paid: Nov 22, 2026\nPayment method: Visa - 4242\n\nQuestions? Contact us at support@acme.example or call +1 415 555 0132.' }, null, null],
  ['reset password', { subject: 'Reset your password', html: '<p>We received a request to reset the password for your account.</p><p><a href="https://app.example/reset-password?token=Zx8Kq2Lm9Pw4Rt7Yv1">Reset password</a></p><p>If you didn\'t ask for this, you can ignore this email.</p>' }, null, 'https://app.example/reset-password?token=Zx8Kq2Lm9Pw4Rt7Yv1'],
  ['password changed negative', { subject: 'Your password was changed', html: '<p>Your password was changed on Nov 22, 2026 at 10:42.</p><p>If this wasn\'t you, <a href="https://app.example/reset-password?token=Qw3Er5Ty7Ui9Op1As2">reset your password</a> immediately.</p>' }, null, null],
  ['korean', { subject: '인증 코드 안내', text: '안녕하세요.\n\n요청하신 인증 코드는 다음과 같습니다.\n\n인증 코드: 583920\n\n이 코드는 10분 동안 유효합니다.' }, '583920', null],
  ['italian', { subject: 'Il tuo codice di verifica', text: 'Ciao,\n\nil tuo codice di verifica è 390117. Scade tra 15 minuti.' }, '390117', null],
  ['spaced digits', { subject: 'Your code', html: '<p>Enter this code:</p><p style="letter-spacing:8px;font-size:28px"><b>4 8 2 9 1 3</b></p>' }, '482913', null],
  ['two-factor in sentence', { subject: 'Login attempt', text: 'Use 2468 as your two-factor code to sign in. It expires at 14:30.' }, '2468', null],
  ['meeting negative', { subject: 'Invitation: Weekly sync', text: 'Join Zoom Meeting\nhttps://zoom.example/j/84512345678?pwd=abcDEF123\nMeeting ID: 845 1234 5678\nPasscode: 731942\n' }, null, null],
  ['activate link short token', { subject: 'Activate your account', html: '<p>Welcome aboard!</p><p><a href="https://app.example/activate/4f9a2c">Activate account</a></p>' }, null, 'https://app.example/activate/4f9a2c'],
  ['welcome verified negative', { subject: 'Your email is verified', html: '<p>Thanks, your email address has been verified. <a href="https://app.example/dashboard">Go to dashboard</a></p>' }, null, null],
  ['confirm subscription', { subject: 'Please confirm your subscription', text: 'Thanks for signing up to our newsletter!\n\nPlease confirm your subscription by clicking the link below:\nhttps://news.example/subscribe/confirm?u=8a7b6c5d4e3f&id=1a2b3c4d5e&e=9f8e7d6c5b\n\nIf you received this email by mistake, simply delete it.' }, null, 'https://news.example/subscribe/confirm?u=8a7b6c5d4e3f&id=1a2b3c4d5e&e=9f8e7d6c5b'],
  ['code in table cells', { subject: 'Verification', html: '<p>Your verification code:</p><table><tr><td>0</td><td>4</td><td>2</td><td>0</td><td>0</td><td>6</td></tr></table>' }, '042006', null],
  ['order number 6 digits negative', { subject: 'Order 482913 confirmed', text: 'Thanks for your order!\nOrder number: 482913\nTotal: 23.90 EUR\nDelivery to 10115 Berlin' }, null, null],
  ['pin 5 digits', { subject: 'Your sign-in PIN', text: 'Your one-time PIN is 73920. Do not share it with anyone.' }, '73920', null],
  ['otp and magic link', { subject: 'Sign in to Acme', html: '<p>Click the button to sign in:</p><a href="https://acme.example/auth/magic?token=Ab12Cd34Ef56Gh78Ij90">Sign in to Acme</a><p>Or enter this code: <strong>551208</strong></p>' }, '551208', 'https://acme.example/auth/magic?token=Ab12Cd34Ef56Gh78Ij90'],
  ['approve sign-in', { subject: 'Approve sign-in request', html: '<p>Someone is trying to sign in to your account.</p><a href="https://id.example/approve?req=Xy7Zq9Wk2Lm4Np6">Yes, it was me</a> <a href="https://id.example/deny?req=Xy7Zq9Wk2Lm4Np6">No, deny</a>' }, null, 'https://id.example/approve?req=Xy7Zq9Wk2Lm4Np6'],
  ['expires in minutes', { subject: 'Code', text: 'Your code is 8841. It expires in 10 minutes.' }, '8841', null],
  ['unsubscribe-only marketing', { subject: '50% off this weekend!', html: '<p>Use promo code SAVE50 at checkout. Offer ends 11/30/2026.</p><a href="https://shop.example/sale?utm_source=mail">Shop now</a><a href="https://shop.example/unsubscribe?id=Ab12Cd34Ef56">Unsubscribe</a>' }, null, null],
  ['verify email plain text angle', { subject: 'Verify your email', text: 'Hi,\n\nPlease verify your email address by visiting <https://app.example/verify-email?token=Tk9Lp3Qr7Ws1Xe5>.\n\nThanks' }, null, 'https://app.example/verify-email?token=Tk9Lp3Qr7Ws1Xe5'],
  ['fr', { subject: 'Votre code', text: 'Bonjour,\nVotre code de vérification est : 123 456\nIl expire dans 10 minutes.' }, '123456', null],
  ['es', { subject: 'Código', text: 'Hola, tu código es 4321. No lo compartas.' }, '4321', null],
  ['pt', { subject: 'Verificação', text: 'Seu código de verificação: 908172' }, '908172', null],
  ['ru', { subject: 'Код', text: 'Ваш код подтверждения: 5821. Никому его не сообщайте.' }, '5821', null],
  ['ja', { subject: '認証コード', text: '認証コード：482913\nこのコードの有効期限は10分です。' }, '482913', null],
  ['zh', { subject: '验证码', text: '您的验证码是 482913，5分钟内有效。请勿泄露给他人。' }, '482913', null],
  ['de', { subject: 'Bestätigung', text: 'Ihr Bestätigungscode lautet 553311. Er ist 15 Minuten gültig.' }, '553311', null],
  ['plain link period', { subject: 'Confirm your email', text: 'Confirm your email by visiting https://app.example/confirm?token=Ab3Cd5Ef7Gh9.' }, null, 'https://app.example/confirm?token=Ab3Cd5Ef7Gh9'],
  ['safelinks', { subject: 'Verify your account', html: '<a href="https://nam02.safelinks.protection.outlook.example/?url=https%3A%2F%2Fapp.example%2Fverify%3Ftoken%3DAb12Cd34Ef56&amp;data=05%7C01&amp;reserved=0">Verify account</a>' }, null, 'https://nam02.safelinks.protection.outlook.example/?url=https%3A%2F%2Fapp.example%2Fverify%3Ftoken%3DAb12Cd34Ef56&data=05%7C01&reserved=0'],
  ['verify + cancel', { subject: 'Confirm your new email', html: '<p>Confirm the change of your email address:</p><a href="https://app.example/email/confirm?t=Qq11Ww22Ee33Rr44">Confirm new email</a><p>Didn\'t request this? <a href="https://app.example/email/cancel?t=Qq11Ww22Ee33Rr44">Cancel this change</a></p>' }, null, 'https://app.example/email/confirm?t=Qq11Ww22Ee33Rr44'],
  ['code expires at time', { subject: 'Your code', text: 'Code: 6612 (valid until 12:45)' }, '6612', null],
  ['phone negative', { subject: 'Call us', text: 'Call our support line at 0800 123 456 or 555-0199 any time.' }, null, null],
  ['year negative', { subject: 'Happy 2026!', text: 'Welcome to 2026. Our office is at 1200 Market Street, Suite 300.' }, null, null],
  ['notice about codes negative', { subject: 'Security tip', text: 'We will never ask you for your verification code. Never share codes sent to you.' }, null, null],
  ['subject only encoded', { subject: '872301 is your login code', text: 'Hi there, use the code in the subject to log in.' }, '872301', null],
  ['invoice negative', { subject: 'Invoice INV-2026-0042', text: 'Invoice number: 004211\nAmount due: $120.00 by 12/01/2026\nPay invoice: https://billing.example/pay?inv=Ab12Cd34Ef56' }, null, null],
  ['zero width', { subject: 'Code', html: '<p>Your code: 4\u200b8\u200b2\u200b9\u200b1\u200b3</p>' }, '482913', null],
  // A label inside a code's purpose phrase names what the code is for, not the number after it.
  ['label in the purpose phrase', { subject: 'Sign-in code', text: 'Your login code for the employee portal is 274910. It is valid for 10 minutes.\nMember number: 55 120 339' }, '274910', null],
  ['one-time password for a transaction', { subject: 'Card payment check', text: 'Amount: GBP 12.40\nCard: **** 4821\n\nYour one-time password for this transaction is 661204. Do not share it.' }, '661204', null],
  ['label in the purpose phrase, code on the next line', { subject: 'Code de connexion', html: '<p>Voici votre code à usage unique pour consulter votre dossier :</p><p><b>480&nbsp;215</b></p><p>Numéro client : 0045 8821</p>' }, '480215', null],
  ['code for an order number stays the order\'s', { subject: 'Delivery code', text: 'Your delivery code for order 551902 is 8841. Show it to the driver.' }, '8841', null],
  ['polish one-time password', { subject: 'Logowanie', text: 'Twoje jednorazowe hasło do logowania: 730418\nHasło jest ważne 5 minut.\nNumer klienta: 77 120 533' }, '730418', null],
  ['turkish one-time password', { subject: 'Giriş', text: 'Giriş için tek kullanımlık şifreniz: 518204\nBu şifre 3 dakika geçerlidir.' }, '518204', null],
  ['enter the code into an app', { subject: 'Your sign-in code', text: 'Type 390127 into the desktop app to finish logging in.\nIt expires soon.' }, '390127', null],
  ['meeting mentioned after a code request on the line above', { subject: 'Verify your email', text: 'Enter this code to confirm your address and book your first meeting:\n\n602719\n\nIt expires in 30 minutes.' }, '602719', null],
  ['one-time passcode from a meetings vendor', { subject: 'Your sign-in passcode', text: 'Here is your one-time passcode to sign in to Vidcall: 418302\n\nAfter signing in you can schedule a meeting or join one with its meeting ID.' }, '418302', null],
  ['code cell beside its validity cell', { subject: 'Sign in', html: '<table><tr><td>Your sign-in code</td></tr><tr><td><b>729104</b></td><td>Valid for 10 minutes</td></tr></table>' }, '729104', null],
  ['en dash between the halves', { subject: 'Code', text: 'Your verification code: 482\u2013913' }, '482913', null],
  ['numeric promotion code negative', { subject: 'Weekend sale', html: '<p>Use code 2468 at checkout to save 15% on everything.</p><a href="https://shop.example/sale">Shop now</a><a href="https://shop.example/unsubscribe?u=Ab12Cd34Ef56">Unsubscribe</a>' }, null, null],
  // Links.
  ['printed URL in HTML-only mail', { subject: 'Activate your account', html: '<p>To activate your account, open this address in your browser:</p><p style="font-family:monospace">https://git.example/user/activate?code=9f2c4e7a1b3d5f6a8c0e2d4b6a8c0e1f</p><p>-- <a href="https://git.example/">Home</a></p>' }, null, 'https://git.example/user/activate?code=9f2c4e7a1b3d5f6a8c0e2d4b6a8c0e1f'],
  ['verify button naming a store', { subject: 'Verify your store email', html: '<p>Please verify the email address for your store.</p><a href="https://shops.example/admin/email/verify?t=Xk29Lm81Qp47" style="background:#008060;padding:12px">Verify store email</a><a href="https://shops.example/help">Help center</a>' }, null, 'https://shops.example/admin/email/verify?t=Xk29Lm81Qp47'],
  ['change my password reset', { subject: 'Reset password instructions', html: '<p>Someone has requested a link to change your password. You can do this through the link below.</p><p><a href="https://app.example/users/password/edit?reset_password_token=Zq81Lw23Rt56">Change my password</a></p><p>If you didn\'t request this, please ignore this email.</p>' }, null, 'https://app.example/users/password/edit?reset_password_token=Zq81Lw23Rt56'],
  ['approve beside deny in one row', { subject: 'Was this you?', html: '<p>Someone is signing in to your account from a new device.</p><table><tr><td><a href="https://id.example/login/approve?req=Hy71Kd29Wq53">Yes, that was me</a></td><td><a href="https://id.example/login/deny?req=Hy71Kd29Wq53">No, it wasn\'t me</a></td></tr></table>' }, null, 'https://id.example/login/approve?req=Hy71Kd29Wq53'],
  ['magic button that works for minutes', { subject: 'Continue to Quill', html: '<p>Click the button below to sign in to Quill. The button expires in 15 minutes.</p><a href="https://t.mail.example/c/Qz81Lm47Wp29Xk63" style="background:#111;padding:12px">Sign in to Quill</a><a href="https://quill.example/privacy">Privacy</a>' }, null, 'https://t.mail.example/c/Qz81Lm47Wp29Xk63'],
  ['german password-changed notice negative', { subject: 'Ihr Passwort wurde geändert', html: '<p>Ihr Passwort wurde soeben geändert.</p><p>Falls Sie das nicht waren, setzen Sie Ihr Passwort sofort zurück:</p><a href="https://konto.example/passwort/zuruecksetzen?t=Kd81Lq29Zx47">Passwort zurücksetzen</a>' }, null, null],
];

for (const [name, input, otp, verification_link] of cases) {
  test(`extract - probe: ${name}`, (t) => {
    t.deepEqual(extract(input), { otp, verification_link });
  });
}
